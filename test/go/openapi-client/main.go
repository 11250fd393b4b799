// Reads this server's OpenAPI through client-go v0.24.17's own clients and prints a JSON summary
// for test/client-go-openapi.test.ts: DiscoveryClient.OpenAPISchema() (gnostic v2 protobuf) and
// the OpenAPI v3 client (discovery document, then a group-version schema by its hash URL).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"
)

type summary struct {
	V2Definitions     int      `json:"v2Definitions"`
	V2HasConfigMap    bool     `json:"v2HasConfigMap"`
	V2ConfigMapPaths  []string `json:"v2ConfigMapPaths"`
	V3Paths           []string `json:"v3Paths"`
	V3ConfigMapSchema bool     `json:"v3ConfigMapSchema"`
	V3DataType        string   `json:"v3DataType"`
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func main() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	must(err)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	must(err)
	var s summary
	doc, err := dc.OpenAPISchema()
	must(err)
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		s.V2Definitions++
		if d.GetName() == "io.k8s.api.core.v1.ConfigMap" {
			s.V2HasConfigMap = true
		}
	}
	for _, p := range doc.GetPaths().GetPath() {
		if strings.Contains(p.GetName(), "configmaps") {
			s.V2ConfigMapPaths = append(s.V2ConfigMapPaths, p.GetName())
		}
	}
	paths, err := dc.OpenAPIV3().Paths()
	must(err)
	for k := range paths {
		s.V3Paths = append(s.V3Paths, k)
	}
	sort.Strings(s.V3Paths)
	if gv, ok := paths["api/v1"]; ok {
		// client-go 0.24 fetches the group-version document as gnostic OpenAPI v3 protobuf.
		d3, err := gv.Schema()
		must(err)
		for _, named := range d3.GetComponents().GetSchemas().GetAdditionalProperties() {
			if named.GetName() != "io.k8s.api.core.v1.ConfigMap" {
				continue
			}
			s.V3ConfigMapSchema = true
			for _, prop := range named.GetValue().GetSchema().GetProperties().GetAdditionalProperties() {
				if prop.GetName() == "data" {
					s.V3DataType = prop.GetValue().GetSchema().GetType()
				}
			}
		}
	}
	must(json.NewEncoder(os.Stdout).Encode(s))
}
