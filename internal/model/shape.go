package model

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// The shape check walks the decoded document alongside the Go types so that
// every unknown field and wrong type is reported, not just the first one as
// encoding/json would. It removes each refused value from the document.

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func checkShape(e *ValidationError, path string, v any, t reflect.Type) {
	if v == nil {
		return // null keeps the zero value
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		b, _ := json.Marshal(v)
		if err := reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(b); err != nil {
			e.Add(path, show(v), err.Error())
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		checkStruct(e, path, v, t)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			e.Add(path, show(v), "expected a mapping of names to entries")
			return
		}
		for _, k := range sortedKeys(m) {
			if f := joinField(path, k); checkRefused(e, f, m[k], t.Elem()) {
				delete(m, k)
			}
		}
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			e.Add(path, show(v), "expected a list")
			return
		}
		for i, x := range l {
			if checkRefused(e, path+"["+strconv.Itoa(i)+"]", x, t.Elem()) {
				l[i] = nil
			}
		}
	case reflect.String:
		// YAML numbers and booleans become text where text is wanted.
		switch v.(type) {
		case string, float64, bool:
		default:
			e.Add(path, show(v), "expected text")
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if f, ok := v.(float64); !ok || f != math.Trunc(f) {
			e.Add(path, show(v), "expected a whole number")
		}
	case reflect.Float64, reflect.Float32:
		if _, ok := v.(float64); !ok {
			e.Add(path, show(v), "expected a number")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			e.Add(path, show(v), "expected true or false")
		}
	}
}

// checkRefused checks v at path and says whether v itself was refused (not
// only something inside it): such a value leaves the document, so that what
// is left can still be read and checked for meaning (ParseValid).
func checkRefused(e *ValidationError, path string, v any, t reflect.Type) bool {
	n := len(e.Problems)
	checkShape(e, path, v, t)
	for _, p := range e.Problems[n:] {
		if p.Field == path {
			return true
		}
	}
	return false
}

func checkStruct(e *ValidationError, path string, v any, t reflect.Type) {
	names, types := jsonFields(t)
	m, ok := v.(map[string]any)
	if !ok {
		where := path
		if where == "" {
			where = "inventory" // the document itself is not a mapping
		}
		e.Add(where, show(v), "expected a mapping with fields "+strings.Join(names, ", "))
		return
	}
	for _, k := range sortedKeys(m) {
		key := k
		if key == "" {
			key = `""` // an empty key still gets a name in the message
		}
		f := joinField(path, key)
		if ft, ok := types[k]; ok {
			if checkRefused(e, f, m[k], ft) {
				delete(m, k)
			}
			continue
		}
		switch strings.ToLower(k) {
		case "password":
			e.Add(f, "(redacted)", "inline secrets are not allowed: use passwordEnv or passwordFile")
		case "username":
			e.Add(f, "(redacted)", "inline secrets are not allowed: use usernameEnv or usernameFile")
		default:
			e.Add(f, showField(k, m[k]), "unknown field: allowed fields are "+strings.Join(names, ", "))
		}
		delete(m, k)
	}
}

// jsonFields lists a struct's JSON names in declaration order, and their types.
func jsonFields(t reflect.Type) ([]string, map[string]reflect.Type) {
	var names []string
	types := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
		types[name] = f.Type
	}
	return names, types
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// showField hides values of fields that look like they hold secrets, so an
// error message never echoes one.
func showField(key string, v any) string {
	k := strings.ToLower(key)
	for _, s := range []string{"pass", "secret", "token", "key"} {
		if strings.Contains(k, s) {
			return "(redacted)"
		}
	}
	return show(v)
}

func show(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 60 {
			return x[:57] + "..."
		}
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		return "{...}"
	case []any:
		return "[...]"
	}
	return ""
}
