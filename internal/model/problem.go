package model

import (
	"errors"
	"fmt"
	"strings"
)

// Problem is one thing wrong with an input: where, what was given, and what
// to do about it.
type Problem struct {
	Field   string `json:"field"`
	Value   string `json:"value"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %q — %s", p.Field, p.Value, p.Message)
}

// ValidationError carries every problem found, so users fix them in one go.
type ValidationError struct {
	Problems []Problem `json:"problems"`
}

// Error lists one problem per line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Add records a problem.
func (e *ValidationError) Add(field, value, message string) {
	e.Problems = append(e.Problems, Problem{Field: field, Value: value, Message: message})
}

// Addf records a problem with a formatted message.
func (e *ValidationError) Addf(field, value, format string, args ...any) {
	e.Add(field, value, fmt.Sprintf(format, args...))
}

// AddErr merges err into e: a ValidationError's problems get prefix in front
// of their fields; any other error becomes one problem at prefix.
func (e *ValidationError) AddErr(prefix string, err error) {
	if err == nil {
		return
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		e.Add(prefix, "", err.Error())
		return
	}
	for _, p := range ve.Problems {
		p.Field = joinField(prefix, p.Field)
		e.Problems = append(e.Problems, p)
	}
}

// Err returns e, or nil when nothing was recorded (a typed nil would be a
// non-nil error).
func (e *ValidationError) Err() error {
	if e == nil || len(e.Problems) == 0 {
		return nil
	}
	return e
}

func joinField(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	case strings.HasPrefix(field, "["):
		return prefix + field
	}
	return prefix + "." + field
}
