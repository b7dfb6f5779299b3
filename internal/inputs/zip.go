package inputs

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode"
)

// ZipLimits bounds what ReadTrainingZip accepts; zero fields take the defaults.
type ZipLimits struct {
	// MaxImageBytes caps one image's uncompressed size (default 8 MB).
	MaxImageBytes int64
	// MaxTotalBytes caps the archive and the sum of uncompressed bytes read (default 200 MB).
	MaxTotalBytes int64
	// MaxImages is how many usable images are kept; later ones are ignored (default 20).
	MaxImages int
	// MaxPixels caps each image's width*height (default DefaultMaxPixels).
	MaxPixels int
}

// Training archive defaults (SPEC.md: at most 8 MB per image, 200 MB per zip, a persona
// uses up to 20 images).
const (
	DefaultZipImageBytes = 8 << 20
	DefaultZipTotalBytes = 200 << 20
	DefaultZipImages     = 20
)

func (z ZipLimits) withDefaults() ZipLimits {
	if z.MaxImageBytes <= 0 {
		z.MaxImageBytes = DefaultZipImageBytes
	}
	if z.MaxTotalBytes <= 0 {
		z.MaxTotalBytes = DefaultZipTotalBytes
	}
	if z.MaxImages <= 0 {
		z.MaxImages = DefaultZipImages
	}
	if z.MaxPixels <= 0 {
		z.MaxPixels = DefaultMaxPixels
	}
	return z
}

// ZipError says why a training archive is unusable; Reason is safe to show a client.
type ZipError struct {
	Reason string
	Err    error // internal cause, for the log only
}

func (e *ZipError) Error() string { return "training data: " + e.Reason }

func (e *ZipError) Unwrap() error { return e.Err }

func zipErr(cause error, format string, args ...any) *ZipError {
	return &ZipError{Reason: fmt.Sprintf(format, args...), Err: cause}
}

// EachTrainingImage calls fn with the name and bytes of each PNG or JPEG entry of a zip
// archive, in archive order, one at a time: an entry is read only when its turn comes and
// nothing of it is kept after fn returns. Formats are judged by content; sizes are enforced
// on the bytes actually decompressed, never on the headers' claims. Directories, __MACOSX/,
// hidden paths, empty entries, unsafe names (absolute, ..) and repeated names are skipped;
// other formats are ignored; after MaxImages images the rest is not read. An error from fn
// stops the walk and is returned as it is.
func EachTrainingImage(data []byte, lim ZipLimits, fn func(name string, body []byte) error) error {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.MaxTotalBytes {
		return zipErr(nil, "archive is larger than %s", sizeText(lim.MaxTotalBytes))
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	// ErrInsecurePath comes with a usable reader; such names are skipped below.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return zipErr(err, "archive is not a valid zip file")
	}
	var (
		n     int
		seen  = map[string]bool{}
		total int64
	)
	for _, f := range zr.File {
		if n >= lim.MaxImages {
			break
		}
		name, ok := usableName(f)
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		body, read, err := readEntry(f, lim)
		total += read
		if total > lim.MaxTotalBytes {
			return zipErr(nil, "archive holds more than %s of data", sizeText(lim.MaxTotalBytes))
		}
		if err != nil {
			return err
		}
		if body == nil {
			continue // not a PNG or JPEG, or empty
		}
		n++
		if err := fn(name, body); err != nil {
			return err
		}
	}
	if n == 0 {
		return zipErr(nil, "no PNG or JPEG images found")
	}
	return nil
}

// usableName returns f's cleaned name and whether the entry may hold a training image.
func usableName(f *zip.File) (string, bool) {
	if f.FileInfo().IsDir() || f.Mode()&(fs.ModeDir|fs.ModeSymlink) != 0 {
		return "", false
	}
	name := strings.ReplaceAll(f.Name, `\`, "/")
	if name == "" || strings.HasSuffix(name, "/") || path.IsAbs(name) ||
		(len(name) >= 2 && name[1] == ':') || strings.ContainsRune(name, 0) {
		return "", false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "." {
			continue
		}
		if part == ".." || strings.HasPrefix(part, ".") || part == "__MACOSX" {
			return "", false
		}
	}
	return path.Clean(name), true
}

// readEntry sniffs f and, for a PNG or JPEG, reads it whole through a limited reader.
// It returns the body (nil for skipped entries) and the uncompressed bytes read.
func readEntry(f *zip.File, lim ZipLimits) ([]byte, int64, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, 0, zipErr(err, "entry %s could not be read (unsupported compression or encryption)", quoteName(f.Name))
	}
	defer rc.Close()
	// Only the magic bytes are read from entries that turn out not to be images, so a
	// huge non-image entry costs nothing.
	head := make([]byte, 8)
	n, err := io.ReadFull(rc, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, int64(n), zipErr(err, "entry %s is corrupt", quoteName(f.Name))
	}
	head = head[:n]
	if fm := Sniff(head); fm != FormatJPEG && fm != FormatPNG {
		return nil, int64(n), nil
	}
	rest, err := io.ReadAll(io.LimitReader(rc, lim.MaxImageBytes+1-int64(n)))
	read := int64(n + len(rest))
	if err != nil {
		return nil, read, zipErr(err, "image %s is corrupt", quoteName(f.Name))
	}
	if read > lim.MaxImageBytes {
		return nil, read, zipErr(nil, "image %s is larger than %s", quoteName(f.Name), sizeText(lim.MaxImageBytes))
	}
	return append(head, rest...), read, nil
}

// quoteName renders an entry name for a public message: printable, at most 80 runes.
func quoteName(name string) string {
	var b strings.Builder
	for i, r := range []rune(name) {
		if i == 80 {
			b.WriteString("...")
			break
		}
		if !unicode.IsPrint(r) {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// EntryError is the ZipError of one image of an archive: "image NAME " and the reason.
func EntryError(name, reason string, cause error) *ZipError {
	return zipErr(cause, "image %s %s", quoteName(name), reason)
}
