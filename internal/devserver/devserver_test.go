package devserver

import (
	"context"
	"testing"

	"go.temporal.io/api/operatorservice/v1"
)

func TestDevServerRegistersSearchAttributes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Temporal dev server")
	}
	s, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c, err := s.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.OperatorService().ListSearchAttributes(context.Background(),
		&operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sa := range SearchAttributes {
		if _, ok := resp.CustomAttributes[sa]; !ok {
			t.Errorf("search attribute %s not registered: %v", sa, resp.CustomAttributes)
		}
	}
}
