package engines

import (
	"io"
	"net/http"

	"thumbforge/internal/core"
)

// Call sends req with hc and returns the body of a 2xx answer, read up to limit bytes. A
// request that could not be sent, or whose answer broke off, is Unavailable (ctx's error
// once the request's context has ended); any other status is FromResponse(resp,
// refused), its Detail prefixed with the method and path asked.
func Call(hc *http.Client, req *http.Request, limit int64, refused func(status int, body []byte) bool) ([]byte, error) {
	ctx := req.Context()
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, Unavailable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		e := FromResponse(resp, refused)
		e.Detail = req.Method + " " + req.URL.Path + ": " + e.Detail
		return nil, e
	}
	data, err := readBody(resp, limit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, Unavailable(err)
	}
	return data, nil
}

// readBody reads an answer whole, in one allocation when its length is known: a
// model's picture in base64 is a megabyte or more, and growing a buffer for it by
// doubling copies it several times.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n <= limit {
		data := make([]byte, n)
		_, err := io.ReadFull(resp.Body, data)
		return data, err
	}
	return io.ReadAll(io.LimitReader(resp.Body, limit))
}

// SDXLSize is the SDXL training bucket of a format's orientation (1344x768, 768x1344,
// 1024x1024): what diffusion backends running SDXL checkpoints generate best.
func SDXLSize(f core.Format) (int, int) {
	switch f {
	case core.Format9x16:
		return 768, 1344
	case core.Format1x1:
		return 1024, 1024
	}
	return 1344, 768
}
