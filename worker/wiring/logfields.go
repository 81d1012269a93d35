package wiring

import (
	"context"
	"reflect"
	"strings"

	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/log"
)

// logFields makes activity.GetLogger add cluster and bmm to every line, so
// an operator can follow one machine across workflows by grepping its name.
// The SDK adds the workflow and activity ids itself. Only names are added:
// activity inputs never hold a secret (docs/design.md#rules-of-the-house), just references to one.
type logFields struct {
	interceptor.WorkerInterceptorBase
}

func (*logFields) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &logFieldsInbound{}
	i.Next = next
	return i
}

type logFieldsInbound struct {
	interceptor.ActivityInboundInterceptorBase
}

type logFieldsKey struct{}

func (i *logFieldsInbound) Init(outbound interceptor.ActivityOutboundInterceptor) error {
	o := &logFieldsOutbound{}
	o.Next = outbound
	return i.Next.Init(o)
}

func (i *logFieldsInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if kv := activityLogFields(activity.GetInfo(ctx), in.Args); len(kv) > 0 {
		ctx = context.WithValue(ctx, logFieldsKey{}, kv)
	}
	return i.Next.ExecuteActivity(ctx, in)
}

type logFieldsOutbound struct {
	interceptor.ActivityOutboundInterceptorBase
}

func (o *logFieldsOutbound) GetLogger(ctx context.Context) log.Logger {
	l := o.Next.GetLogger(ctx)
	if kv, ok := ctx.Value(logFieldsKey{}).([]any); ok {
		return log.With(l, kv...)
	}
	return l
}

// bmmWorkflows are the workflow types whose id names one BMM third:
// upgrade:<c>:<bmm> (not the rack's upgrade:<c>:<rack>), action:<c>:<bmm>:<n>,
// remediate:<c>:<bmm>, troubleshoot:<c>:<bmm>.
var bmmWorkflows = map[string]bool{
	api.ServerUpgradeWorkflowName: true, api.BMMActionWorkflowName: true,
	api.RemediationWorkflowName: true, api.TroubleshootWorkflowName: true,
}

// activityLogFields finds the cluster in the workflow id and the BMM in the
// activity's input (a BMM field, e.g. bmc.Endpoint's), else in the id.
func activityLogFields(info activity.Info, args []any) []any {
	var kv []any
	id := info.WorkflowExecution.ID
	if c, err := ClusterOf(id); err == nil {
		kv = append(kv, "cluster", c)
	}
	bmm := ""
	for _, a := range args {
		if bmm = fieldNamed(reflect.ValueOf(a), "BMM", 2); bmm != "" {
			break
		}
	}
	if parts := strings.Split(id, ":"); bmm == "" && len(parts) > 2 && bmmWorkflows[info.WorkflowType.Name] {
		bmm = parts[2]
	}
	if bmm != "" {
		kv = append(kv, "bmm", bmm)
	}
	return kv
}

// fieldNamed returns the string field name of v, looking depth structs deep
// (bmc.ReimageInput.Endpoint.BMM, ledger.RecordInput.Patch.BMM).
func fieldNamed(v reflect.Value, name string, depth int) string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	if f := v.FieldByName(name); f.IsValid() && f.Kind() == reflect.String && f.String() != "" {
		return f.String()
	}
	if depth == 0 {
		return ""
	}
	for i := range v.NumField() {
		if v.Type().Field(i).IsExported() {
			if s := fieldNamed(v.Field(i), name, depth-1); s != "" {
				return s
			}
		}
	}
	return ""
}
