package wiring

import (
	"context"

	"github.com/rackroll/rackroll/activities/kube"
	"go.temporal.io/sdk/interceptor"
)

// forbidden makes an RBAC denial from any activity a final failure that
// names the missing permission (kube.Forbidden), so a step that lacks one
// fails at once, saying what to grant, instead of retrying to its limit.
type forbidden struct {
	interceptor.WorkerInterceptorBase
}

func (*forbidden) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &forbiddenInbound{}
	i.Next = next
	return i
}

type forbiddenInbound struct {
	interceptor.ActivityInboundInterceptorBase
}

func (i *forbiddenInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	res, err := i.Next.ExecuteActivity(ctx, in)
	return res, kube.Forbidden(err)
}
