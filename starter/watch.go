package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// frame is one poll of something being watched: what to show, and
// whether the watch is over.
type frame struct {
	// Line is the one-line form printed when not on a terminal; a line
	// equal to the previous one is not printed again, so logs carry
	// changes, not a heartbeat.
	Line string
	// Draw renders the full view a terminal redraws in place (nil: Line).
	Draw func(w io.Writer)
	// Done ends the watch with Err (nil: exit 0). A done frame is still
	// shown first, so the reason a watch stops is on screen.
	Done bool
	Err  error
}

// watchInterval is how often a watch polls: once a second is what a human
// follows and costs the server one describe or query. (A variable so unit
// tests of the loop need not sleep.)
var watchInterval = time.Second

// watch is the one loop behind --watch and --wait for upgrades, actions,
// remediations and runbooks: poll, show, stop when the frame says so. On
// a terminal it clears the screen and redraws; elsewhere it prints a
// timestamped line per change.
func watch(ctx context.Context, w io.Writer, poll func(context.Context) (frame, error)) error {
	tty := isTerminal(w)
	last := ""
	for {
		f, err := poll(ctx)
		if err != nil {
			return err
		}
		switch {
		case tty && f.Draw != nil:
			fmt.Fprint(w, "\033[H\033[2J")
			f.Draw(w)
		case f.Line != "" && f.Line != last:
			fmt.Fprintf(w, "%s %s\n", time.Now().Format("15:04:05"), f.Line)
			last = f.Line
		}
		if f.Done {
			return f.Err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(watchInterval):
		}
	}
}
