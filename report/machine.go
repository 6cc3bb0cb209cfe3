package report

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// Machine is the host that ran the callers.
type Machine struct {
	Hostname  string `json:"hostname"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	Cores     int    `json:"cores"`
	GoVersion string `json:"go_version"`
	CPUModel  string `json:"cpu_model,omitempty"` // from /proc/cpuinfo when readable
}

// ThisMachine describes the host it runs on; fields it cannot learn stay empty.
func ThisMachine() Machine {
	host, _ := os.Hostname() // best effort: an unnamed host is still a host
	return Machine{
		Hostname:  host,
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		Cores:     runtime.NumCPU(),
		GoVersion: runtime.Version(),
		CPUModel:  cpuModel("/proc/cpuinfo"),
	}
}

// cpuModel reads the first model line of a cpuinfo file: "model name" on x86, "Model" or
// "Hardware" on ARM boards; "" when there is none.
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	found := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if ok && v != "" && found[k] == "" {
			found[k] = v
		}
	}
	for _, k := range []string{"model name", "Model", "Hardware", "cpu model"} {
		if found[k] != "" {
			return found[k]
		}
	}
	return ""
}
