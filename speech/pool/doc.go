// Package pool renders the phrases callers speak once, before a run, and keeps each one ready in
// every form a transport sends (PCM at 8/16/48 kHz, G.711 mu-law frames, Opus packets) with the exact
// samples of its first and last voiced sample. A caller plays from the pool and never synthesises or
// encodes per frame: that keeps the load generator's own cost out of the measurement.
package pool
