// swift-tools-version:6.0
import PackageDescription

// A package that uses live-stories as others would: through a tagged git URL and a version
// range. SwiftPM refuses a versioned dependency that uses unsafe flags, so this builds only
// while live-stories has none. `scripts/check-consumer.sh` tags a clone and sets the URL.
let url = Context.environment["LIVE_STORIES_URL"] ?? "https://github.com/live-stories/live-stories"

let package = Package(
    name: "consumer",
    dependencies: [
        .package(url: url, from: "0.0.1"),
    ],
    targets: [
        .executableTarget(
            name: "consumer",
            dependencies: [
                .product(name: "StoryPlayer", package: "live-stories"),
                .product(name: "Compositor", package: "live-stories"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
