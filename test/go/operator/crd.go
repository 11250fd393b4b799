package main

import (
	"context"
	"fmt"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const crdName = "widgets.demo.operator.test"

func str(t string) apiextv1.JSONSchemaProps { return apiextv1.JSONSchemaProps{Type: t} }

func raw(json string) *apiextv1.JSON { return &apiextv1.JSON{Raw: []byte(json)} }

func float(f float64) *float64 { return &f }

// widgetCRD is the operator's CustomResourceDefinition: a structural schema with defaults for
// spec.color and spec.size, the status subresource, printer columns and a short name.
func widgetCRD() *apiextv1.CustomResourceDefinition {
	condition := apiextv1.JSONSchemaProps{
		Type:     "object",
		Required: []string{"type", "status", "lastTransitionTime", "reason", "message"},
		Properties: map[string]apiextv1.JSONSchemaProps{
			"type":               str("string"),
			"status":             {Type: "string", Enum: []apiextv1.JSON{*raw(`"True"`), *raw(`"False"`), *raw(`"Unknown"`)}},
			"observedGeneration": {Type: "integer", Format: "int64", Minimum: float(0)},
			"lastTransitionTime": {Type: "string", Format: "date-time"},
			"reason":             str("string"),
			"message":            str("string"),
		},
	}
	mapType := "map"
	schema := &apiextv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextv1.JSONSchemaProps{
			"spec": {
				Type:     "object",
				Required: []string{"message"},
				Properties: map[string]apiextv1.JSONSchemaProps{
					"message": {Type: "string", MinLength: func() *int64 { n := int64(1); return &n }()},
					"color":   {Type: "string", Enum: []apiextv1.JSON{*raw(`"red"`), *raw(`"green"`), *raw(`"blue"`)}, Default: raw(`"blue"`)},
					"size":    {Type: "integer", Format: "int32", Minimum: float(1), Maximum: float(10), Default: raw(`1`)},
				},
			},
			"status": {
				Type: "object",
				Properties: map[string]apiextv1.JSONSchemaProps{
					"observedGeneration": {Type: "integer", Format: "int64"},
					"configMapName":      str("string"),
					"conditions": {
						Type:         "array",
						XListType:    &mapType,
						XListMapKeys: []string{"type"},
						Items:        &apiextv1.JSONSchemaPropsOrArray{Schema: &condition},
					},
				},
			},
		},
	}
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: crdName},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: GroupVersion.Group,
			Names: apiextv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wdg"},
			},
			Scope: apiextv1.NamespaceScoped,
			Versions: []apiextv1.CustomResourceDefinitionVersion{{
				Name: GroupVersion.Version, Served: true, Storage: true,
				Schema:       &apiextv1.CustomResourceValidation{OpenAPIV3Schema: schema},
				Subresources: &apiextv1.CustomResourceSubresources{Status: &apiextv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: []apiextv1.CustomResourceColumnDefinition{
					{Name: "Color", Type: "string", JSONPath: ".spec.color"},
					{Name: "ConfigMap", Type: "string", JSONPath: ".status.configMapName"},
				},
			}},
		},
	}
}

// installCRD creates the CRD, or updates its spec when it exists, then waits until it is
// Established (its resources are served).
func installCRD(ctx context.Context, c client.Client) error {
	want := widgetCRD()
	var have apiextv1.CustomResourceDefinition
	err := c.Get(ctx, client.ObjectKey{Name: crdName}, &have)
	switch {
	case apierrors.IsNotFound(err):
		if err := c.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD: %w", err)
		}
	case err != nil:
		return fmt.Errorf("get CRD: %w", err)
	default:
		have.Spec = want.Spec
		if err := c.Update(ctx, &have); err != nil {
			return fmt.Errorf("update CRD: %w", err)
		}
	}
	return wait.PollImmediateWithContext(ctx, 100*time.Millisecond, 30*time.Second, func(ctx context.Context) (bool, error) {
		var crd apiextv1.CustomResourceDefinition
		if err := c.Get(ctx, client.ObjectKey{Name: crdName}, &crd); err != nil {
			return false, err
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}
