package model

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// problems unwraps a *ValidationError.
func problems(t *testing.T, err error) []Problem {
	t.Helper()
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "want a *ValidationError, got %v", err)
	return ve.Problems
}

func TestValidationError(t *testing.T) {
	var e ValidationError
	assert.NoError(t, e.Err(), "no problems is no error")
	var nilErr *ValidationError
	assert.NoError(t, nilErr.Err())

	e.Add("racks[1].servers[3].bmc.address", "", "required: the BMC's Redfish URL, e.g. https://10.1.0.11")
	e.Addf("cluster", "Site_B", "must be %s", "lowercase")
	assert.Equal(t, `racks[1].servers[3].bmc.address: "" — required: the BMC's Redfish URL, e.g. https://10.1.0.11`+"\n"+
		`cluster: "Site_B" — must be lowercase`, e.Error())
}

func TestAddErr(t *testing.T) {
	var inner ValidationError
	inner.Add("thresholdValue", "120", "too big")
	inner.Add("", "x", "whole thing")
	inner.Add("[0]", "y", "first")

	var e ValidationError
	e.AddErr("strategy", &inner)
	e.AddErr("strategy", fmt.Errorf("wrapped: %w", &inner))
	e.AddErr("targetVersion", errors.New("plain"))
	e.AddErr("ignored", nil)
	ps := e.Problems
	require.Len(t, ps, 7)
	assert.Equal(t, "strategy.thresholdValue", ps[0].Field)
	assert.Equal(t, "strategy", ps[1].Field)
	assert.Equal(t, "strategy[0]", ps[2].Field)
	assert.Equal(t, Problem{Field: "targetVersion", Message: "plain"}, ps[6])
}
