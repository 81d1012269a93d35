package main

import (
	"bytes"
	"image"
	"image/png"
	"log"
	"os"
)

// maxPNG keeps the docs' pictures light enough for the repository.
const maxPNG = 300 << 10

// shrink re-encodes a PNG with the best compression (Chromium writes fast,
// large PNGs) and keeps the smaller file. A picture still above maxPNG is
// reported, not degraded: a smaller window is the better fix.
func shrink(file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, opaque(img)); err != nil {
		return err
	}
	if buf.Len() < len(raw) {
		raw = buf.Bytes()
		if err := os.WriteFile(file, raw, 0o644); err != nil {
			return err
		}
	}
	if len(raw) > maxPNG {
		log.Printf("warning: %s is %d KiB (over %d KiB)", file, len(raw)>>10, maxPNG>>10)
	}
	return nil
}

// opaque drops the alpha channel of a screenshot (always opaque), which
// saves a quarter of the pixel data before compression.
func opaque(img image.Image) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(b) // alpha stays 0xff; png writes RGB when opaque
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = uint8(r>>8), uint8(g>>8), uint8(bl>>8), 0xff
		}
	}
	return out
}
