package devserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"
)

// waitHealthy polls the frontend until it answers, the process exits, or
// a minute passes (then the server is stopped).
func (s *Server) waitHealthy(ctx context.Context, p *proc) error {
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := client.Dial(client.Options{HostPort: s.Address, Logger: quiet{}})
		if err == nil {
			_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
			c.Close()
			if err == nil {
				return nil
			}
		}
		select {
		case <-p.done:
			s.Stop()
			return fmt.Errorf("temporal server exited early: %s", p.log.String())
		case <-ctx.Done():
			s.Stop()
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("temporal server on %s not healthy after 1m: %v\n%s", s.Address, err, p.log.String())
		}
	}
}

// registerDefaults registers the namespace "default" (a day's retention)
// and rackroll's search attributes in it, as start-dev does; a server
// restarted on its sqlite file has them already.
func registerDefaults(ctx context.Context, addr string) error {
	ns, err := client.NewNamespaceClient(client.Options{HostPort: addr, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer ns.Close()
	err = ns.Register(ctx, &workflowservice.RegisterNamespaceRequest{Namespace: "default",
		WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)})
	if err != nil && !errors.As(err, new(*serviceerror.NamespaceAlreadyExists)) {
		return fmt.Errorf("register namespace default: %w", err)
	}
	c, err := client.Dial(client.Options{HostPort: addr, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer c.Close()
	// A namespace just registered may not be known to every service yet.
	for try := 0; ; try++ {
		if err = addSearchAttributes(ctx, c); err == nil || try == 50 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("add search attributes: %w", err)
	}
	return nil
}

// addSearchAttributes adds those of SearchAttributes the namespace lacks.
func addSearchAttributes(ctx context.Context, c client.Client) error {
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		return err
	}
	attrs := map[string]enumspb.IndexedValueType{}
	for _, sa := range SearchAttributes {
		if _, ok := have.CustomAttributes[sa]; !ok {
			attrs[sa] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
		}
	}
	if len(attrs) == 0 {
		return nil
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: "default", SearchAttributes: attrs})
	return err
}
