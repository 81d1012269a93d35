package redfish

import (
	"fmt"
	"time"
)

// Task states (Redfish TaskState) the lab uses.
const (
	taskRunning   = "Running"
	taskCompleted = "Completed"
	taskException = "Exception"
	taskCancelled = "Cancelled"
	taskScheduled = "Scheduled" // Supermicro X12: waits for a host reset (not DMTF's)
)

// task is a Redfish Task; its URI doubles as the task monitor: GET answers
// 202 while it runs and 200 once it is done, as DSP0266 asks of monitors.
type task struct {
	id      string
	name    string
	state   string
	message string
	started time.Time
	ended   time.Time
	target  string // the URI of the action
	payload map[string]any
	// progress is PercentComplete while the task runs (nil: 0).
	progress func() int
}

// taskList keeps the most recent tasks; old ones are forgotten (a monitor of
// a forgotten task answers 404, which DSP0266 allows).
type taskList struct {
	next   int
	prefix string
	order  []string
	byID   map[string]*task
}

const keepTasks = 200

func (l *taskList) add(name, target string, payload map[string]any) *task {
	if l.byID == nil {
		l.byID = map[string]*task{}
	}
	l.next++
	t := &task{
		id:      fmt.Sprintf("%s%09d", l.prefix, l.next),
		name:    name,
		state:   taskRunning,
		started: time.Now(),
		target:  target,
		payload: payload,
	}
	l.byID[t.id] = t
	l.order = append(l.order, t.id)
	if len(l.order) > keepTasks {
		delete(l.byID, l.order[0])
		l.order = l.order[1:]
	}
	return t
}

func (t *task) finish(state, message string) {
	if t.done() {
		return
	}
	t.state = state
	t.message = message
	t.ended = time.Now()
}

// done: the task reached a final state (Running, and Pending or
// Scheduled for the next reset, are not).
func (t *task) done() bool {
	return t.state != taskRunning && t.state != taskPending && t.state != taskScheduled
}

// newResetTaskLocked starts tracking a reset; a reset still in flight is
// superseded.
func (b *BMC) newResetTaskLocked(rt string) *task {
	b.cancelTaskLocked(rt)
	b.task = b.tasks.add("Reset "+rt, b.paths.reset, map[string]any{"ResetType": rt})
	return b.task
}

func (b *BMC) cancelTaskLocked(by string) {
	if b.task != nil {
		b.task.finish(taskCancelled, "Superseded by reset "+by+".")
		b.task = nil
	}
}

func (b *BMC) finishTaskLocked(state, message string) {
	if b.task != nil {
		b.task.finish(state, message)
		b.task = nil
	}
}

// completedTaskLocked records an action whose effect is immediate, so
// clients that follow the monitor see it Completed at once.
func (b *BMC) completedTaskLocked(name, target, message string) *task {
	t := b.tasks.add(name, target, nil)
	t.finish(taskCompleted, message)
	return t
}
