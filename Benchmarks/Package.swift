// swift-tools-version:6.1
import PackageDescription

// The raster micro-benchmark, as its own package so that the product never builds
// package-benchmark or links pixman. The main package is named "live-stories" here, as in
// Tests/Fuzz/Package.swift, so its products are found whatever the clone's folder is called.
let package = Package(
    name: "live-stories-benchmarks",
    dependencies: [
        .package(name: "live-stories", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .systemLibrary(
            name: "CPixman",
            path: "Sources/CPixman",
            pkgConfig: "pixman-1",
            providers: [.apt(["libpixman-1-dev"])]
        ),
        .executableTarget(
            name: "RasterBenchmark",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "Compositor", package: "live-stories"),
                "CPixman",
            ],
            path: "Benchmarks/RasterBenchmark",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        // 1000 play/stop cycles of one file: time to first frame, and resident memory.
        .executableTarget(
            name: "lifecycle-cost",
            dependencies: [.product(name: "StoryPlayer", package: "live-stories"),
                           .product(name: "Compositor", package: "live-stories")],
            path: "Sources/lifecycle-cost"
        ),
    ]
)
