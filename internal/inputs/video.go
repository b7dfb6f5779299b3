package inputs

import (
	"net/url"
	"strings"
)

// VideoThumbnailURL maps a video-sharing-site video URL (youtube.com/watch?v=ID,
// youtu.be/ID, youtube.com/shorts/ID, /embed/ID, /live/ID, on www. and m. hosts too) to
// the https URL of its high-quality thumbnail; ok is false for any other URL.
func VideoThumbnailURL(u string) (string, bool) {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.User != nil || p.Port() != "" {
		return "", false
	}
	host := strings.ToLower(p.Hostname())
	var id string
	switch host {
	case "youtu.be":
		id = strings.TrimPrefix(p.Path, "/")
	case "youtube.com", "www.youtube.com", "m.youtube.com", "music.youtube.com":
		segs := strings.Split(strings.Trim(p.Path, "/"), "/")
		switch {
		case len(segs) == 1 && segs[0] == "watch":
			id = p.Query().Get("v")
		case len(segs) == 2 && (segs[0] == "shorts" || segs[0] == "embed" || segs[0] == "live"):
			id = segs[1]
		}
	}
	if !isVideoID(id) {
		return "", false
	}
	return "https://i.ytimg.com/vi/" + id + "/hqdefault.jpg", true
}

// isVideoID reports whether id is 11 characters of the URL-safe base64 alphabet.
func isVideoID(id string) bool {
	if len(id) != 11 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
