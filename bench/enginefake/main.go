// Command enginefake serves OpenAI Images API fakes (internal/engines/enginetest/openaifake)
// for benchmarks, in a process of its own so that their CPU is not counted as
// thumbforge's. Every answer comes after -delay and is the same photo-like picture,
// 1536x1024 (gpt-image-1's 16:9 frame): a real photograph scaled up with fine grain, so
// that it is as large and as slow to decode as a model's, in the format asked (PNG by
// default, JPEG when the request says output_format=jpeg).
//
//	enginefake -n 4 -delay 300ms     # prints the API base URLs, comma-separated
package main

import (
	"flag"
	"fmt"
	"image"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	_ "image/jpeg"

	"thumbforge/internal/engines/enginetest/openaifake"
)

func main() {
	n := flag.Int("n", 4, "how many fake backends (one port each)")
	delay := flag.Duration("delay", 300*time.Millisecond, "how long every image request takes")
	photo := flag.String("photo", "internal/faces/testdata/rocket.jpg", "photograph the answer is made from")
	flag.Parse()
	answer, err := picture(*photo, 1536, 1024)
	if err != nil {
		log.Fatal(err)
	}
	var urls []string
	for range *n {
		f, err := openaifake.New(openaifake.Config{Delay: *delay, Answer: answer})
		if err != nil {
			log.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		urls = append(urls, "http://"+ln.Addr().String()+"/v1")
		go func() { log.Fatal(http.Serve(ln, f)) }()
	}
	fmt.Println(strings.Join(urls, ","))
	fmt.Fprintf(os.Stderr, "enginefake: %d backends, %v per image, each answer the same 1536x1024 picture\n", *n, *delay)
	select {}
}

// picture is the photograph at path made into a w x h answer.
func picture(path string, w, h int) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, _, err := image.Decode(f)
	if err != nil {
		return nil, err
	}
	return openaifake.Photo(src, w, h), nil
}
