package deps
import (
 _ "gopkg.in/hraban/opus.v2"
 _ "github.com/pion/webrtc/v4"
 _ "github.com/gorilla/websocket"
 _ "github.com/prometheus/client_golang/prometheus"
 _ "go.uber.org/goleak"
 _ "github.com/montanaflynn/stats"
 _ "github.com/goccy/go-yaml"
)
