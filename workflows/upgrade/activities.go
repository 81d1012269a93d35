package upgrade

import (
	"github.com/rackroll/rackroll/activities/kube"
)

// Nil receivers: workflows name an activity by a method value on them (the
// activity type is the method's name, whatever package declares the var).
var (
	ka *kube.Activities
)
