package redfish

import (
	"net/http"
	"sort"
	"strconv"
)

// login creates a session (POST needs no auth; the body carries it).
func (b *BMC) login(w http.ResponseWriter, r *http.Request) {
	var body struct{ UserName, Password string }
	if e := decodeBody(r, &body); e != nil {
		writeError(w, e)
		return
	}
	b.mu.Lock()
	if !b.credentialsMatch(body.UserName, body.Password) && !b.accountLoginLocked(body.UserName, body.Password) {
		b.mu.Unlock()
		writeError(w, &apiError{http.StatusUnauthorized, "NoValidSession", "The user name or password is not valid."})
		return
	}
	s, e := b.openSessionLocked(body.UserName)
	b.mu.Unlock()
	b.flush()
	if e != nil {
		writeError(w, e)
		return
	}
	w.Header().Set("X-Auth-Token", s.token)
	w.Header().Set("Location", sessionsPath+"/"+s.id)
	writeJSON(w, http.StatusCreated, sessionDoc(s))
}

func (b *BMC) session(w http.ResponseWriter, r *http.Request, id string) {
	dispatch(w, r, handlers{
		http.MethodGet: func() {
			b.mu.Lock()
			s := b.sessions.byID[id]
			b.mu.Unlock()
			if s == nil {
				notFound(w, r)
				return
			}
			writeJSON(w, http.StatusOK, sessionDoc(s))
		},
		http.MethodDelete: func() {
			b.mu.Lock()
			ok := b.closeSessionLocked(id)
			b.mu.Unlock()
			b.flush()
			if !ok {
				notFound(w, r)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		},
	})
}

func (b *BMC) sessionsLocked() doc {
	ids := make([]string, 0, len(b.sessions.byID))
	for id := range b.sessions.byID {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, _ := strconv.Atoi(ids[i])
		c, _ := strconv.Atoi(ids[j])
		return a < c
	})
	members := make([]string, 0, len(ids))
	for _, id := range ids {
		members = append(members, sessionsPath+"/"+id)
	}
	return collection(sessionsPath, "SessionCollection", "Session Collection", members...)
}
