package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// What one call costs the process, for the default live-call limit. The limit protects the
// process from running out of file descriptors or memory, not call quality: the CPU runs out
// first (60 WebRTC calls on 2 cores, README), and that is what `callfleet probe` measures.
const (
	// reservedFDs are kept for everything but calls: listener, model files, logs, scrapes.
	reservedFDs = 64
	// fixedFDsPerCall: the Twilio websocket or the offer's connection, and the recording. A
	// WebRTC call adds one ICE socket per local interface address (webrtc.go).
	fixedFDsPerCall = 2
	// memPerCall is a call's worst case: 0.7–1.4 MiB measured at steady state (README, make
	// bench), plus a full 30 s turn buffer at 16 kHz (1 MiB) and pion's receive buffers.
	memPerCall = 4 << 20
	// memShare: calls get half the memory; the Go heap grows to twice its live size (GOGC=100).
	memShare = 2
	// unknownMaxCalls is the limit when the process knows neither of its limits.
	unknownMaxCalls = 1000
)

// Resources are the process limits the default live-call limit is derived from; 0 = unknown.
type Resources struct {
	OpenFiles uint64 // RLIMIT_NOFILE, soft (Go raises it to the hard limit at start-up)
	Memory    uint64 // bytes: the least of GOMEMLIMIT, the cgroup's limit and physical memory
	Addrs     int    // local interface addresses a WebRTC call gathers ICE candidates on
}

// ProbeResources reads this process's limits.
func ProbeResources() Resources {
	return Resources{OpenFiles: openFileLimit(), Memory: memoryLimit(), Addrs: interfaceAddrs()}
}

// MaxCalls is the live-call limit r can hold: the least of what the file descriptors and the
// memory allow, never below 1.
func (r Resources) MaxCalls() int {
	limit := uint64(math.MaxInt32)
	known := false
	if r.OpenFiles > 0 {
		per := uint64(max(r.Addrs, 1) + fixedFDsPerCall)
		limit, known = min(limit, (max(r.OpenFiles, reservedFDs)-reservedFDs)/per), true
	}
	if r.Memory > 0 {
		limit, known = min(limit, r.Memory/memShare/memPerCall), true
	}
	if !known {
		return unknownMaxCalls
	}
	return int(max(limit, 1))
}

// String says what the limit came from, for --help and the start-up line.
func (r Resources) String() string {
	mem := "unknown"
	if r.Memory > 0 {
		mem = fmt.Sprintf("%.1f GiB", float64(r.Memory)/(1<<30))
	}
	return fmt.Sprintf("RLIMIT_NOFILE %d, memory %s, %d interface addresses", r.OpenFiles, mem, r.Addrs)
}

// DefaultMaxCalls is ProbeResources().MaxCalls(), probed once per process.
var DefaultMaxCalls = sync.OnceValue(func() int { return ProbeResources().MaxCalls() })

// memoryLimit is the least of GOMEMLIMIT, the cgroup's memory limit and MemTotal; 0 if none is known.
func memoryLimit() uint64 {
	var limit uint64
	take := func(v uint64) {
		if v > 0 && (limit == 0 || v < limit) {
			limit = v
		}
	}
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		take(uint64(l))
	}
	take(cgroupMemory())
	take(memTotal())
	return limit
}

// cgroupMemory reads the memory limit of this process's cgroup (v2 memory.max, v1
// memory.limit_in_bytes); 0 when there is none. v1 writes "no limit" as a huge number, which
// MemTotal then undercuts.
func cgroupMemory() uint64 {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// hierarchy-ID:controllers:path (cgroups(7)); v2 is "0::path".
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			paths = append(paths, filepath.Join("/sys/fs/cgroup", parts[2], "memory.max"))
		case strings.Contains(","+parts[1]+",", ",memory,"):
			paths = append(paths, filepath.Join("/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes"),
				"/sys/fs/cgroup/memory/memory.limit_in_bytes") // a namespaced cgroup sees itself at the root
		}
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil {
			return v // "max" (no limit) does not parse
		}
	}
	return 0
}

// memTotal is /proc/meminfo's MemTotal in bytes, 0 when unknown.
func memTotal() uint64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// interfaceAddrs counts the addresses of the interfaces that are up, loopback included (the
// agent gathers loopback candidates for callers on the same host).
func interfaceAddrs() int {
	ifs, err := net.Interfaces()
	if err != nil {
		return 0
	}
	n := 0
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		if addrs, err := ifc.Addrs(); err == nil {
			n += len(addrs)
		}
	}
	return n
}
