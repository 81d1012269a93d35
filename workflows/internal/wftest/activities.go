package wftest

import (
	"github.com/rackroll/rackroll/activities/bmc"
	"github.com/rackroll/rackroll/activities/etcd"
	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/activities/kube"
	"github.com/rackroll/rackroll/activities/ledger"
)

// Nil receivers: workflows name an activity by a method value on them (the
// activity type is the method's name, whatever package declares the var).
var (
	la *ledger.Activities
	ka *kube.Activities
	ba *bmc.Activities
	ea *etcd.Activities
	ia *image.Activities
)
