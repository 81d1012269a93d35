package redfish

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/rackroll/rackroll/internal/lab/events"
)

// sessionStore holds Redfish sessions (DSP0266 "Session management"):
// at most Profile.SessionLimit at once, closed by DELETE (logout) or after
// Profile.SessionTimeout without a request. Opening and closing are logged
// (session-create, session-delete), so a test can prove none leaks.
type sessionStore struct {
	next    int
	byID    map[string]*session
	byToken map[string]*session
}

type session struct {
	id, token, user string
	lastUsed        time.Time
}

func (s *sessionStore) create(user string, now time.Time) *session {
	if s.byID == nil {
		s.byID, s.byToken = map[string]*session{}, map[string]*session{}
	}
	s.next++
	buf := make([]byte, 16)
	rand.Read(buf)
	ss := &session{id: strconv.Itoa(s.next), token: hex.EncodeToString(buf), user: user, lastUsed: now}
	s.byID[ss.id] = ss
	s.byToken[ss.token] = ss
	return ss
}

func (s *sessionStore) remove(id string) bool {
	ss, ok := s.byID[id]
	if !ok {
		return false
	}
	delete(s.byID, id)
	delete(s.byToken, ss.token)
	return true
}

// Sessions is how many sessions are open now.
func (b *BMC) Sessions() int {
	b.mu.Lock()
	b.expireSessionsLocked()
	n := len(b.sessions.byID)
	b.mu.Unlock()
	b.flush()
	return n
}

// expireSessionsLocked closes sessions idle longer than the timeout.
func (b *BMC) expireSessionsLocked() {
	if b.prof.SessionTimeout <= 0 {
		return
	}
	now := b.clk.Now()
	for id, s := range b.sessions.byID {
		if now.Sub(s.lastUsed) >= b.prof.SessionTimeout {
			b.sessions.remove(id)
			b.emitLocked(events.SessionDelete, map[string]any{"id": id, "user": s.user, "reason": "timeout"})
		}
	}
}

// openSessionLocked logs in, or refuses when the BMC's limit is reached.
func (b *BMC) openSessionLocked(user string) (*session, *apiError) {
	b.expireSessionsLocked()
	if lim := b.prof.SessionLimit; lim > 0 && len(b.sessions.byID) >= lim {
		status := b.prof.SessionLimitStatus
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		b.emitLocked(events.SessionRefused, map[string]any{"user": user, "limit": lim})
		return nil, &apiError{status, b.prof.SessionLimitID, b.prof.SessionLimitMessage}
	}
	s := b.sessions.create(user, b.clk.Now())
	b.emitLocked(events.SessionCreate, map[string]any{"id": s.id, "user": user})
	return s, nil
}

func (b *BMC) closeSessionLocked(id string) bool {
	s := b.sessions.byID[id]
	if s == nil || !b.sessions.remove(id) {
		return false
	}
	b.emitLocked(events.SessionDelete, map[string]any{"id": id, "user": s.user, "reason": "logout"})
	return true
}

func (b *BMC) credentialsMatch(user, pass string) bool {
	u := subtle.ConstantTimeCompare([]byte(user), []byte(b.cfg.Username))
	p := subtle.ConstantTimeCompare([]byte(pass), []byte(b.cfg.Password))
	return u&p == 1
}

// authorize accepts a live session's X-Auth-Token (and marks it used), or
// HTTP basic auth where the profile allows it. It returns the refusal.
func (b *BMC) authorize(r *http.Request) *apiError {
	b.mu.Lock()
	defer func() {
		b.mu.Unlock()
		b.flush()
	}()
	b.expireSessionsLocked()
	if tok := r.Header.Get("X-Auth-Token"); tok != "" {
		s, ok := b.sessions.byToken[tok]
		if !ok {
			return &apiError{http.StatusUnauthorized, "NoValidSession", "There is no valid session established with the implementation; the session may have timed out: log in again."}
		}
		s.lastUsed = b.clk.Now()
		return nil
	}
	if user, pass, ok := r.BasicAuth(); ok {
		if !b.prof.BasicAuth {
			return &apiError{http.StatusUnauthorized, "NoValidSession", "Basic authentication is disabled on this service; create a session at " + sessionsPath + " and send its X-Auth-Token."}
		}
		if b.credentialsMatch(user, pass) || b.accountLoginLocked(user, pass) {
			return nil
		}
		return &apiError{http.StatusUnauthorized, "NoValidSession", "The user name or password is not valid."}
	}
	if b.prof.NoAuth {
		return nil // authentication turned off: anyone on the network reads and acts
	}
	return &apiError{http.StatusUnauthorized, "NoValidSession", "There is no valid session established with the implementation; use an X-Auth-Token (or basic auth where enabled)."}
}

// public reports whether a request needs no credentials: the version
// document, the service root, OData documents and the login POST.
func public(method, p string) bool {
	switch p {
	case "/redfish", rootPath, rootPath + "/odata", rootPath + "/$metadata":
		return method == http.MethodGet || method == http.MethodHead
	case sessionsPath:
		return method == http.MethodPost
	}
	return false
}
