package blob

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The worked examples of the S3 SigV4 documentation ("Examples of signature
// calculations" for the Authorization header, and the presigned URL example), with AWS's
// published example credentials. A signer that agrees only with itself proves nothing;
// one that reproduces these byte for byte is accepted by S3.
var awsExample = sigv4{
	accessKey: "AKIAIOSFODNN7EXAMPLE",
	secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	region:    "us-east-1",
	service:   "s3",
}

var awsExampleTime = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)

func TestSigV4HeaderExamples(t *testing.T) {
	tests := []struct {
		name, method, url string
		headers           map[string]string
		payloadHash       string
		wantSigned, want  string
	}{
		{
			name: "GET object", method: http.MethodGet, url: "https://examplebucket.s3.amazonaws.com/test.txt",
			headers:     map[string]string{"Range": "bytes=0-9"},
			payloadHash: emptySHA256,
			wantSigned:  "host;range;x-amz-content-sha256;x-amz-date",
			want:        "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
		},
		{
			name: "PUT object", method: http.MethodPut, url: "https://examplebucket.s3.amazonaws.com/test$file.text",
			headers: map[string]string{
				"Date":                "Fri, 24 May 2013 00:00:00 GMT",
				"X-Amz-Storage-Class": "REDUCED_REDUNDANCY",
			},
			payloadHash: "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072", // "Welcome to Amazon S3."
			wantSigned:  "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
			want:        "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd",
		},
		{
			name: "GET bucket lifecycle", method: http.MethodGet, url: "https://examplebucket.s3.amazonaws.com/?lifecycle",
			payloadHash: emptySHA256,
			wantSigned:  "host;x-amz-content-sha256;x-amz-date",
			want:        "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543",
		},
		{
			name: "GET bucket (list objects)", method: http.MethodGet, url: "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
			payloadHash: emptySHA256,
			wantSigned:  "host;x-amz-content-sha256;x-amz-date",
			want:        "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, tt.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			awsExample.sign(req, tt.payloadHash, awsExampleTime)
			want := "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
				"SignedHeaders=" + tt.wantSigned + ", Signature=" + tt.want
			if got := req.Header.Get("Authorization"); got != want {
				t.Errorf("Authorization\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestSigV4PresignExample(t *testing.T) {
	u, _ := url.Parse("https://examplebucket.s3.amazonaws.com/test.txt")
	got := awsExample.presign(http.MethodGet, u, awsExampleTime, 86400*time.Second)
	const want = "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
		"&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request" +
		"&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host" +
		"&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
	if got != want {
		t.Errorf("presigned URL\n got %s\nwant %s", got, want)
	}
}

func TestURIEncode(t *testing.T) {
	tests := []struct {
		in          string
		encodeSlash bool
		want        string
	}{
		{"a-b_c.d~e", true, "a-b_c.d~e"},
		{"a/b c", false, "a/b%20c"},
		{"a/b c", true, "a%2Fb%20c"},
		{"x+y=z&$", true, "x%2By%3Dz%26%24"},
		{"ü", true, "%C3%BC"},
	}
	for _, tt := range tests {
		if got := uriEncode(tt.in, tt.encodeSlash); got != tt.want {
			t.Errorf("uriEncode(%q, %v) = %q, want %q", tt.in, tt.encodeSlash, got, tt.want)
		}
	}
	q := url.Values{"b": {"2"}, "a-": {"x"}, "a": {"z", "y"}}
	if got := canonicalQuery(q); got != "a=y&a=z&a-=x&b=2" {
		t.Errorf("canonicalQuery = %q", got)
	}
	if !strings.Contains(canonicalQuery(url.Values{"lifecycle": {""}}), "lifecycle=") {
		t.Error("empty value must keep its =")
	}
}
