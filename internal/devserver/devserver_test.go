package devserver_test

import (
	"context"
	"testing"

	"github.com/rackroll/rackroll/internal/devserver"
	"github.com/rackroll/rackroll/test/e2e"
	"go.temporal.io/api/operatorservice/v1"
)

func TestDevServerRegistersSearchAttributes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the Temporal dev server")
	}
	c := e2e.DevServer(t)
	resp, err := c.OperatorService().ListSearchAttributes(context.Background(),
		&operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sa := range devserver.SearchAttributes {
		if _, ok := resp.CustomAttributes[sa]; !ok {
			t.Errorf("search attribute %s not registered: %v", sa, resp.CustomAttributes)
		}
	}
}
