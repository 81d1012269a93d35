package bmc

import (
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
)

// What each task state means for an update, as DMTF and the vendors say
// them.
func TestMeaningOfTaskStates(t *testing.T) {
	for _, c := range []struct {
		state, message string
		want           taskMeaning
	}{
		{"Running", "", taskWorking},
		{"New", "", taskWorking},
		{"Starting", "", taskWorking},
		{"Downloading", "", taskWorking},
		{"Suspended", "", taskWorking},
		{"Pending", "", taskWorking},                              // queued
		{"Pending", "Waiting for the previous job.", taskWorking}, // queued still
		{"Pending", "Task successfully scheduled.", taskStaged},   // iDRAC's staged job
		{"Pending", "The update applies at the next host reset.", taskStaged},
		{"Pending", "Reboot the server to apply.", taskStaged},
		{"Scheduled", "", taskStaged}, // Supermicro X12: waits for a power cycle
		{"scheduled", "", taskStaged}, // vendors' case
		{"Staged", "", taskStaged},
		{"Completed", "", taskDone},
		{"COMPLETED", "", taskDone},
		{"Exception", "The image failed verification.", taskFailed},
		{"Killed", "", taskFailed},
		{"Cancelled", "", taskFailed},
		{"Interrupted", "", taskFailed},
		{"Frobbing", "", taskUnknown},
		{"", "", taskUnknown},
	} {
		assert.Equal(t, c.want, meaningOf(bmcclient.Task{State: c.state, Message: c.message}), "%s %q", c.state, c.message)
	}
}

func TestDescribeTaskNamesWhatItMeans(t *testing.T) {
	assert.Equal(t, "Running 40%", describeTask(bmcclient.Task{State: "Running", Percent: 40}))
	assert.Equal(t, "Scheduled 100% (staged until a host reset)", describeTask(bmcclient.Task{State: "Scheduled", Percent: 100}))
	assert.Equal(t, "Frobbing 0% (a task state rackroll does not know: followed until it ends or the limit): flashing",
		describeTask(bmcclient.Task{State: "Frobbing", Message: "flashing"}))
}
