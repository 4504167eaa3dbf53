module github.com/gpumap/gpumap

go 1.26

require (
	github.com/klauspost/compress v1.20.3
	github.com/sbromberger/gompi v0.2.0
)
