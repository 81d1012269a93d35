package redfish

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strconv"
)

// sessionStore holds Redfish sessions (DSP0266 "Session management"). The
// lab never expires them; DELETE logs out.
type sessionStore struct {
	next    int
	byID    map[string]*session
	byToken map[string]*session
}

type session struct {
	id, token, user string
}

func (s *sessionStore) create(user string) *session {
	if s.byID == nil {
		s.byID, s.byToken = map[string]*session{}, map[string]*session{}
	}
	s.next++
	buf := make([]byte, 16)
	rand.Read(buf)
	ss := &session{id: strconv.Itoa(s.next), token: hex.EncodeToString(buf), user: user}
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

func (b *BMC) credentialsMatch(user, pass string) bool {
	u := subtle.ConstantTimeCompare([]byte(user), []byte(b.cfg.Username))
	p := subtle.ConstantTimeCompare([]byte(pass), []byte(b.cfg.Password))
	return u&p == 1
}

// authorized accepts HTTP basic auth or a session's X-Auth-Token.
func (b *BMC) authorized(r *http.Request) bool {
	if tok := r.Header.Get("X-Auth-Token"); tok != "" {
		b.mu.Lock()
		_, ok := b.sessions.byToken[tok]
		b.mu.Unlock()
		return ok
	}
	if user, pass, ok := r.BasicAuth(); ok {
		return b.credentialsMatch(user, pass)
	}
	return false
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
