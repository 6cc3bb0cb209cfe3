package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestDeployScenario loads the scenario of deploy/k8s/configmap.yaml the way `callfleet run
// --scenario` does (strict: an unknown key fails) and checks it makes a valid plan.
func TestDeployScenario(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "configmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(b, &cm); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := os.WriteFile(path, []byte(cm.Data["scenario.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	var rf runFlags
	rf.register(flag.NewFlagSet("run", flag.ContinueOnError))
	if err := rf.loadScenario(path); err != nil {
		t.Fatal(err)
	}
	if _, _, errs := rf.plan(); len(errs) > 0 {
		t.Errorf("the deploy scenario is not a valid plan: %v", errs)
	}
}
