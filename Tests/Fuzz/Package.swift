// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets over the Swift parsers, in a package of their own: they link only when built
// with `-sanitize=fuzzer`, which the root package's normal `swift build` must not need. It
// depends on the root package by path and reads its internals with `@testable import`, so it is
// built with `-enable-testing` (scripts/fuzz.sh gives the flags). Each target's `main` hands
// its test function to libFuzzer's driver (CFuzzerDriver). The C targets (PNG coder, deflate
// bit writer) are built with clang directly from `C/`.
let package = Package(
    name: "live-stories-fuzz",
    dependencies: [.package(name: "live-stories", path: "../..")],
    targets: [
        .target(name: "CFuzzerDriver"),
        .executableTarget(name: "FuzzStoryboard",
                          dependencies: ["CFuzzerDriver", .product(name: "StoryPlayer", package: "live-stories")]),
        .executableTarget(name: "FuzzTraceLine",
                          dependencies: ["CFuzzerDriver", .product(name: "StoryPlayer", package: "live-stories")]),
        .executableTarget(name: "FuzzFeedPage",
                          dependencies: ["CFuzzerDriver", .product(name: "StoryPlayer", package: "live-stories")]),
        .executableTarget(name: "FuzzEXIF",
                          dependencies: ["CFuzzerDriver", .product(name: "StoryPlayer", package: "live-stories")]),
        .executableTarget(name: "FuzzManifest",
                          dependencies: ["CFuzzerDriver", .product(name: "StoryPlayer", package: "live-stories")]),
    ],
    swiftLanguageModes: [.v6]
)
