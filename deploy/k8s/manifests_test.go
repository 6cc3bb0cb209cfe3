package k8s

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	goyaml "github.com/goccy/go-yaml"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// decode reads a manifest strictly into its API type: an unknown or misspelt field is an error.
func decode[T any](t *testing.T, file, apiVersion, kind string) *T {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(b, &head); err != nil || head.APIVersion != apiVersion || head.Kind != kind {
		t.Fatalf("%s: %s %s (%v), want %s %s", file, head.APIVersion, head.Kind, err, apiVersion, kind)
	}
	var v T
	if err := yaml.UnmarshalStrict(b, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return &v
}

type manifests struct {
	job, merge *batchv1.Job
	scenario   *corev1.ConfigMap
	pvc        *corev1.PersistentVolumeClaim
	pod        *corev1.Pod
}

func load(t *testing.T) manifests {
	return manifests{
		job:      decode[batchv1.Job](t, "job.yaml", "batch/v1", "Job"),
		merge:    decode[batchv1.Job](t, "merge-job.yaml", "batch/v1", "Job"),
		scenario: decode[corev1.ConfigMap](t, "configmap.yaml", "v1", "ConfigMap"),
		pvc:      decode[corev1.PersistentVolumeClaim](t, "results-pvc.yaml", "v1", "PersistentVolumeClaim"),
		pod:      decode[corev1.Pod](t, "results-pod.yaml", "v1", "Pod"),
	}
}

var shardArg = regexp.MustCompile(`^--shard=\$\(JOB_COMPLETION_INDEX\)/([0-9]+)$`)

func TestIndexedJob(t *testing.T) {
	m := load(t)
	spec := m.job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v, want Indexed", spec.CompletionMode)
	}
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Parallelism != *spec.Completions {
		t.Fatalf("completions %v parallelism %v: every shard must run at once", spec.Completions, spec.Parallelism)
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 0 || spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Error("a failed shard must not run again on its own: backoffLimit 0, restartPolicy Never")
	}
	if len(spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(spec.Template.Spec.Containers))
	}
	c := spec.Template.Spec.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "run" {
		t.Fatalf("args %v: want callfleet run", c.Args)
	}
	shards := 0
	for _, a := range c.Args {
		if g := shardArg.FindStringSubmatch(a); g != nil {
			shards, _ = strconv.Atoi(g[1])
		}
	}
	if shards != int(*spec.Completions) {
		t.Errorf("--shard .../%d but %d completions", shards, *spec.Completions)
	}
	out := flagValue(c.Args, "--out")
	if !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") || !underMount(c, "results", out) {
		t.Errorf("--out %q: want a folder per shard on the results volume", out)
	}
	// Every $(VAR) is one Kubernetes expands: the index it injects, or a declared env var.
	env := map[string]bool{"JOB_COMPLETION_INDEX": true}
	for _, e := range c.Env {
		env[e.Name] = true
	}
	for _, a := range c.Args {
		for _, ref := range regexp.MustCompile(`\$\(([A-Z_]+)\)`).FindAllStringSubmatch(a, -1) {
			if !env[ref[1]] {
				t.Errorf("%s refers to $(%s), which is not set", a, ref[1])
			}
		}
	}
	if flagValue(c.Args, "--start-at") != "$(START_AT)" {
		t.Error("the shards need a common --start-at")
	}
	// Prometheus finds each shard's figures where --metrics-listen serves them.
	_, port, _ := strings.Cut(flagValue(c.Args, "--metrics-listen"), ":")
	ann := spec.Template.Annotations
	if port == "" || ann["prometheus.io/port"] != port || ann["prometheus.io/scrape"] != "true" ||
		len(c.Ports) != 1 || strconv.Itoa(int(c.Ports[0].ContainerPort)) != port {
		t.Errorf("--metrics-listen port %q, annotations %v, container ports %v: want one port, announced", port, ann, c.Ports)
	}
	// The scenario file is the ConfigMap's key, mounted where --scenario looks.
	scenario := flagValue(c.Args, "--scenario")
	mount := mountOf(c, "scenario")
	vol := volumeOf(spec.Template.Spec, "scenario")
	if mount == nil || vol == nil || vol.ConfigMap == nil || vol.ConfigMap.Name != m.scenario.Name {
		t.Fatalf("no scenario volume from ConfigMap %s", m.scenario.Name)
	}
	key := strings.TrimPrefix(scenario, mount.MountPath+"/")
	if _, ok := m.scenario.Data[key]; !ok || key == scenario {
		t.Errorf("--scenario %s: ConfigMap %s has no key %q under %s", scenario, m.scenario.Name, key, mount.MountPath)
	}
	if r := claimOf(spec.Template.Spec, "results"); r == nil || r.ClaimName != m.pvc.Name {
		t.Errorf("results volume is not the claim %s", m.pvc.Name)
	}
	// The anti-affinity spreads the job's own pods.
	aff := spec.Template.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
	for k, v := range aff.LabelSelector.MatchLabels {
		if spec.Template.Labels[k] != v {
			t.Errorf("anti-affinity selects %s=%s, which the pods do not carry", k, v)
		}
	}
	if sc := spec.Template.Spec.SecurityContext; sc == nil || sc.FSGroup == nil {
		t.Error("no fsGroup: the non-root image cannot write the results volume")
	}
}

func TestMergeJobAndVolume(t *testing.T) {
	m := load(t)
	if !slices.Contains(m.pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("access modes %v: the shards write from several nodes at once", m.pvc.Spec.AccessModes)
	}
	if q := m.pvc.Spec.Resources.Requests[corev1.ResourceStorage]; q.Cmp(resource.MustParse("100Mi")) < 0 {
		t.Errorf("storage %s", q.String())
	}
	c := m.merge.Spec.Template.Spec.Containers[0]
	script := strings.Join(append(c.Command, c.Args...), " ")
	jobOut := flagValue(m.job.Spec.Template.Spec.Containers[0].Args, "--out")
	glob := strings.ReplaceAll(jobOut, "$(JOB_COMPLETION_INDEX)", "*") + "/report.json"
	if !strings.Contains(script, "callfleet merge "+glob+" -o ") || !strings.Contains(script, "--format html") {
		t.Errorf("the merge job does not merge %s: %s", glob, script)
	}
	if r := claimOf(m.merge.Spec.Template.Spec, "results"); r == nil || r.ClaimName != m.pvc.Name || !underMount(c, "results", "/results/merged") {
		t.Error("the merge job does not mount the results claim at /results")
	}
	if r := claimOf(m.pod.Spec, "results"); r == nil || r.ClaimName != m.pvc.Name {
		t.Error("the results pod does not mount the results claim")
	}
}

// TestScenario checks the scenario has the settings a run cannot do without; cmd/callfleet's
// test decodes it with the run's own strict loader.
func TestScenario(t *testing.T) {
	m := load(t)
	var s map[string]any
	if err := goyaml.Unmarshal([]byte(m.scenario.Data["scenario.yaml"]), &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"target", "transport", "steps", "step_duration"} {
		if s[k] == nil {
			t.Errorf("scenario has no %s", k)
		}
	}
}

func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

func mountOf(c corev1.Container, name string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].Name == name {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

func underMount(c corev1.Container, name, path string) bool {
	m := mountOf(c, name)
	return m != nil && strings.HasPrefix(path, m.MountPath+"/")
}

func volumeOf(spec corev1.PodSpec, name string) *corev1.Volume {
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			return &spec.Volumes[i]
		}
	}
	return nil
}

// claimOf is the claim behind a named volume, nil when it is not a claim.
func claimOf(spec corev1.PodSpec, name string) *corev1.PersistentVolumeClaimVolumeSource {
	if v := volumeOf(spec, name); v != nil {
		return v.PersistentVolumeClaim
	}
	return nil
}
