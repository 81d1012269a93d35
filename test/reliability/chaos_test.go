package reliability

import (
	"math/rand/v2"
	"time"
)

// chaos SIGKILLs the worker at random moments and restarts it, until it has
// killed `kills` times, the operation is over (running) or stop is called.
// The gaps are drawn from rng between minGap and maxGap; the worker stays
// down a random moment too, so some kills land while activities are in
// flight and some while workflow tasks are, and some restarts find their
// work already timed out.
type chaos struct {
	stopc chan struct{}
	done  chan struct{}
	n     int // kills so far; read after stop
}

func startChaos(w *workerProc, rng *rand.Rand, kills int, minGap, maxGap time.Duration, running func() bool) *chaos {
	c := &chaos{stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for c.n < kills {
			gap := minGap + time.Duration(rng.Int64N(int64(maxGap-minGap)+1))
			select {
			case <-c.stopc:
				return
			case <-time.After(gap):
			}
			// Only kills during the operation count.
			if !running() {
				return
			}
			w.kill()
			c.n++
			down := time.Duration(rng.Int64N(int64(time.Second)))
			select {
			case <-c.stopc:
			case <-time.After(down):
			}
			// Even after stop: the run must end with a worker up.
			if err := w.start(); err != nil {
				w.t.Errorf("restart the worker after kill %d: %v", c.n, err)
				return
			}
		}
	}()
	return c
}

// stop ends the kills and returns how many there were.
func (c *chaos) stop() int {
	select {
	case <-c.stopc:
	default:
		close(c.stopc)
	}
	<-c.done
	return c.n
}
