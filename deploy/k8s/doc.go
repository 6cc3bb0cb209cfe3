// Package k8s holds the Kubernetes manifests of a sharded run (see README.md): an Indexed Job
// whose pods each run one shard, the scenario ConfigMap, the results volume and the merge job.
// It has no code; its test decodes the manifests with the Kubernetes API types, offline.
package k8s
