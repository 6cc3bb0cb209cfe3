package lowprio

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// niceOf reads a thread's nice value from its stat file (field 19).
func niceOf(t *testing.T, stat string) (int, bool) {
	b, err := os.ReadFile(stat)
	if err != nil {
		return 0, false // the thread ended
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // from field 3 on
	n, err := strconv.Atoi(fields[16])
	if err != nil {
		t.Fatalf("%s: nice %q: %v", stat, fields[16], err)
	}
	return n, true
}

// threadsAt counts the process's threads at a nice value, the main thread aside: Go cannot end
// it, so if the work ran there the runtime parks it for good (it runs nothing again).
func threadsAt(t *testing.T, nice int) int {
	stats, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil || len(stats) == 0 {
		t.Fatalf("no /proc/self/task: %v", err)
	}
	n := 0
	main := fmt.Sprintf("/proc/self/task/%d/stat", os.Getpid())
	for _, p := range stats {
		if p == main {
			continue
		}
		if v, ok := niceOf(t, p); ok && v == nice {
			n++
		}
	}
	return n
}

// Run runs its work on a thread at the nice value, and the thread is gone afterwards.
func TestRun(t *testing.T) {
	var inside int
	if err := Run(7, func() { inside, _ = niceOf(t, "/proc/thread-self/stat") }); err != nil {
		t.Fatal(err)
	}
	if inside != 7 {
		t.Errorf("work ran at nice %d, want 7", inside)
	}
	deadline := time.Now().Add(2 * time.Second)
	for threadsAt(t, 7) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d threads still at nice 7 after the work ended", threadsAt(t, 7))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The work runs with the short Slice on kernels that have custom slices (6.12+), and with the
// default (reported as 0 or the base slice) elsewhere; the nice value holds either way.
func TestRunSlice(t *testing.T) {
	var got *unix.SchedAttr
	var err error
	if rerr := Run(9, func() { got, err = unix.SchedGetAttr(0, 0) }); rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got.Nice != 9 || got.Policy != 0 {
		t.Errorf("work ran under policy %d at nice %d, want SCHED_OTHER at 9", got.Policy, got.Nice)
	}
	if customSlices(t) && got.Runtime != uint64(Slice.Nanoseconds()) {
		t.Errorf("work ran with a %d ns slice, want %d", got.Runtime, Slice.Nanoseconds())
	}
}

// customSlices reports whether the kernel is 6.12 or later.
func customSlices(t *testing.T) bool {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var major, minor int
	fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &major, &minor)
	return major > 6 || major == 6 && minor >= 12
}
