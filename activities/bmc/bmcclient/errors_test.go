package bmcclient

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPredicatesLookThroughWrapping(t *testing.T) {
	notFound := fmt.Errorf("read the task: %w", &StatusError{Status: 404, Message: "gone"})
	assert.Equal(t, 404, StatusOf(notFound))
	assert.True(t, NotFound(notFound))
	assert.False(t, Unauthorized(notFound))
	assert.Zero(t, StatusOf(errors.New("EOF")), "no answer, no status")

	partial := &PartialError{Failures: map[string]error{"/a": errors.New("EOF"), "/b": &StatusError{Status: 401}}}
	assert.True(t, Unauthorized(partial), "a member's 401")
	assert.Equal(t, "2 members of the collection failed", partial.Error())

	capped := &StatusError{Status: 503, SessionCap: true, Err: errors.New("503: RAC0218")}
	assert.True(t, SessionCapped(fmt.Errorf("connect: %w", capped)))
	assert.False(t, SessionCapped(&StatusError{Status: 503}))
	assert.Equal(t, "503: RAC0218", capped.Error(), "the client's text")
	assert.Equal(t, "404: gone", (&StatusError{Status: 404, Message: "gone"}).Error())
}
