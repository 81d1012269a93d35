package redfish

import (
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
)

func (b *BMC) updateService() doc {
	d := doc{"@odata.id": updatePath, "@odata.type": "#UpdateService.v1_11_0.UpdateService", "Id": "UpdateService",
		"Name": "Update Service", "ServiceEnabled": true,
		"FirmwareInventory": link(firmwarePath), "SoftwareInventory": link(inventoryPath)}
	if !b.prof.NoSimpleUpdate {
		d["Actions"] = doc{"#UpdateService.SimpleUpdate": doc{
			"target": simpleUpdatePath,
			"TransferProtocol@Redfish.AllowableValues": []string{"HTTP", "HTTPS"},
			"@Redfish.OperationApplyTimeSupport": doc{"@odata.type": "#Settings.v1_3_5.OperationApplyTimeSupport",
				"SupportedValues": []string{"Immediate", "OnReset"}},
		}}
	}
	if b.prof.MultipartPush {
		d["MultipartHttpPushUri"] = pushPath
	}
	b.prof.Updates.describe(d)
	return d
}

// postSimpleUpdate: DSP0268 UpdateService.SimpleUpdate.
func (b *BMC) postSimpleUpdate(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ImageURI         string
		TransferProtocol string
		Targets          []string
		ApplyTime        string `json:"@Redfish.OperationApplyTime"`
	}
	e := decodeBody(r, &body)
	b.mu.Lock()
	b.updateRequests++
	b.changedLocked()
	b.mu.Unlock()
	b.flush()
	switch {
	case e != nil:
		writeError(w, e)
		return
	case body.ImageURI == "":
		writeError(w, &apiError{http.StatusBadRequest, "ActionParameterMissing", "The action UpdateService.SimpleUpdate requires the parameter ImageURI."})
		return
	case body.ApplyTime != "" && body.ApplyTime != "Immediate" && body.ApplyTime != "OnReset":
		writeError(w, &apiError{http.StatusBadRequest, "ActionParameterValueNotInList", "The value " + body.ApplyTime + " for @Redfish.OperationApplyTime is not in the list of acceptable values: Immediate, OnReset."})
		return
	}
	b.answerUpdate(w, updateAsk{image: body.ImageURI, applyTime: body.ApplyTime, via: "SimpleUpdate",
		targets: body.Targets, protocol: body.TransferProtocol})
}

// postPush: a multipart/form-data POST to MultipartHttpPushUri with the
// parts UpdateParameters (JSON: Targets, @Redfish.OperationApplyTime) and
// UpdateFile (the package; its file name says what it installs).
func (b *BMC) postPush(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	b.updateRequests++
	b.changedLocked()
	b.mu.Unlock()
	b.flush()
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		writeError(w, &apiError{http.StatusUnsupportedMediaType, "UnsupportedMediaType", "The push URI takes multipart/form-data with parts UpdateParameters and UpdateFile."})
		return
	}
	var applyTime, file string
	var targets []string
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			writeError(w, &apiError{http.StatusBadRequest, "MalformedJSON", "The multipart body could not be read: " + err.Error()})
			return
		}
		switch part.FormName() {
		case "UpdateParameters":
			var p struct {
				Targets   []string
				ApplyTime string `json:"@Redfish.OperationApplyTime"`
			}
			raw, _ := io.ReadAll(io.LimitReader(part, 1<<16))
			if json.Unmarshal(raw, &p) != nil {
				writeError(w, &apiError{http.StatusBadRequest, "MalformedJSON", "The UpdateParameters part is not valid JSON."})
				return
			}
			applyTime, targets = p.ApplyTime, p.Targets
		case "UpdateFile":
			file = part.FileName()
			io.Copy(io.Discard, part)
		}
	}
	if file == "" {
		writeError(w, &apiError{http.StatusBadRequest, "ActionParameterMissing", "The push needs an UpdateFile part with a file name."})
		return
	}
	b.answerUpdate(w, updateAsk{image: file, applyTime: applyTime, via: "MultipartPush", targets: targets})
}

func (b *BMC) answerUpdate(w http.ResponseWriter, ask updateAsk) {
	b.mu.Lock()
	kind := "other"
	if m := packageName.FindStringSubmatch(pathBase(ask.image)); m != nil {
		kind = strings.ToLower(m[1])
	}
	if b.kindRequests == nil {
		b.kindRequests = map[string]int{}
	}
	b.kindRequests[kind]++
	t, e := b.startUpdateLocked(ask)
	var d doc
	if t != nil {
		d = taskDoc(t)
	}
	b.mu.Unlock()
	b.flush()
	if e != nil {
		if e.status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "5")
		}
		writeError(w, e)
		return
	}
	b.prof.Updates.reply(w, t.id, d)
}

// firmwareMember serves one FirmwareInventory member.
func (b *BMC) firmwareMember(w http.ResponseWriter, r *http.Request, id string) {
	dispatch(w, r, handlers{http.MethodGet: func() {
		b.mu.Lock()
		d := b.firmwareMemberLocked(id)
		b.mu.Unlock()
		if d == nil {
			notFound(w, r)
			return
		}
		writeJSON(w, http.StatusOK, d)
	}})
}

// isFirmwareMember reports whether p addresses a member of the inventory.
func isFirmwareMember(p string) (string, bool) {
	id, ok := strings.CutPrefix(p, firmwarePath+"/")
	return id, ok && id != "" && !strings.Contains(id, "/")
}
