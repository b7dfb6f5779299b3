package inputs

import "testing"

func TestVideoThumbnailURL(t *testing.T) {
	const id = "dQw4w9WgXcQ"
	const want = "https://i.ytimg.com/vi/" + id + "/hqdefault.jpg"
	tests := []struct {
		in string
		ok bool
	}{
		{"https://www.youtube.com/watch?v=" + id, true},
		{"https://youtube.com/watch?v=" + id + "&t=42s&list=PL123", true},
		{"http://m.youtube.com/watch?feature=share&v=" + id, true},
		{"https://WWW.YouTube.com/watch?v=" + id, true},
		{"https://youtu.be/" + id, true},
		{"https://youtu.be/" + id + "?si=abc&t=3", true},
		{"https://www.youtube.com/shorts/" + id, true},
		{"https://youtube.com/shorts/" + id + "/?feature=share", true},
		{"https://www.youtube.com/embed/" + id, true},
		{"https://music.youtube.com/watch?v=" + id, true},
		{"https://www.youtube.com/watch?v=dQw4w9WgXc", false},   // 10 chars
		{"https://www.youtube.com/watch?v=dQw4w9WgXcQQ", false}, // 12 chars
		{"https://www.youtube.com/watch?v=dQw4w9WgX.Q", false},  // bad char
		{"https://www.youtube.com/watch?v=dQw4w9WgX%2FQ", false},
		{"https://www.youtube.com/watch", false},
		{"https://www.youtube.com/channel/" + id, false},
		{"https://youtu.be/" + id + "/extra", false},
		{"https://youtube.com.evil.example/watch?v=" + id, false},
		{"https://evil.example/watch?v=" + id, false},
		{"https://user@youtube.com/watch?v=" + id, false},
		{"https://youtube.com:8443/watch?v=" + id, false},
		{"ftp://youtube.com/watch?v=" + id, false},
		{"javascript:alert(1)", false},
		{"", false},
	}
	for _, tt := range tests {
		got, ok := VideoThumbnailURL(tt.in)
		if ok != tt.ok || (ok && got != want) || (!ok && got != "") {
			t.Errorf("VideoThumbnailURL(%q) = %q, %v; want ok=%v", tt.in, got, ok, tt.ok)
		}
	}
}
