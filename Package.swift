// swift-tools-version:6.0
import PackageDescription

/// The Debian packages that provide the C libraries this package links.
/// `scripts/install-deps.sh` installs the same list; keep the two in step.
let ffmpegPackages = ["libavformat-dev", "libavcodec-dev", "libavfilter-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"]
let freetypePackages = ["libfreetype-dev"]
let photoPackages = ["libheif-dev", "liblcms2-dev"]
let captionPackages = ["libass-dev"]

/// The studio (`render-stories studio`, issue 31) is a web server on Hummingbird. The sanitizer
/// and fuzz builds set LIVE_STORIES_NO_STUDIO=1 so they compile neither it nor SwiftNIO: it
/// has no threads of ours worth sanitizing that the libraries do not already have, and
/// Hummingbird would add minutes to each of those builds.
let withStudio = Context.environment["LIVE_STORIES_NO_STUDIO"] == nil

let package = Package(
    name: "live-stories",
    products: [
        .library(name: "StoryPlayer", targets: ["StoryPlayer"]),
        // StoryBase with it: the stage clocks, shard costs and file helpers (atomic files, output
        // folders, temporary files) it offered before they moved there.
        .library(name: "Compositor", targets: ["Compositor", "StoryBase"]),
        .executable(name: "render-stories", targets: ["render-stories"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ] + (withStudio ? [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Already Hummingbird's own dependencies; named so the studio can use their types
        // (a quiet logger, custom response headers).
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // Hummingbird's too: the studio runs its server in a service group of its own, so that
        // the CLI's signal helper, not Hummingbird, decides when it stops.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ] : []),
    targets: [
        // MARK: - C shims
        .systemLibrary(
            name: "CFFmpeg",
            // libavfilter is not linked: its headers are here for its types, and StoryMedia's
            // FilterLibrary opens it when a filter is first needed (its 30-odd dependencies cost
            // every process 60 ms of CPU at start).
            pkgConfig: "libavformat libavcodec libswscale libswresample libavutil",
            providers: [.apt(ffmpegPackages)]
        ),
        // Text: FreeType rasterizes the glyphs of a font Debian ships (fonts-dejavu-core).
        .systemLibrary(
            name: "CFreeType",
            pkgConfig: "freetype2",
            providers: [.apt(freetypePackages)]
        ),
        // Phone photos: libheif reads HEIC, HEIF and AVIF (FFmpeg 5.1 cannot); Little CMS converts
        // a photo's embedded ICC profile (Display P3, Adobe RGB) to sRGB.
        // libheif is not linked (no pkgConfig, whose flags would link it; its header is on the
        // default path): StoryMedia's HEIFLibrary opens it for the first HEIF photo.
        .systemLibrary(name: "CHEIF", providers: [.apt(photoPackages)]),
        .systemLibrary(name: "CLittleCMS", pkgConfig: "lcms2", providers: [.apt(photoPackages)]),
        // Captions: libass draws WebVTT and SRT cues (made into an ASS track) as players draw subtitles.
        .systemLibrary(name: "CLibass", pkgConfig: "libass", providers: [.apt(captionPackages)]),
        // libpng reports errors with setjmp/longjmp, which Swift frames cannot survive,
        // so every libpng call lives in this C target and returns plain error codes. It also
        // holds the deflate coder for the run-length and Huffman-only strategies (zlib's
        // crc32 only; Adler-32 is its own, with AVX2), which is where the frame time went.
        .target(
            name: "CStoryPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        // The rasterizer's span kernel (AVX2 gathers and FMA, chosen at run time) and its cache
        // prefetch, which Swift cannot express.
        .target(name: "CRasterSupport"),
        // glibc's mallopt, which Swift's Glibc module does not import.
        .target(name: "CMemoryPolicy"),
        // WebRTC playback (WHEP): every call of GStreamer's webrtcbin, which Debian 12 has (it
        // has no libdatachannel). Not linked: it opens GStreamer on first use (dlopen), so a
        // render without a WHEP source pays nothing at start. docs/live.md says why this stack.
        .target(name: "CStoryWHEP"),

        // MARK: - Libraries
        // What every layer needs and none of them owns, in pure Swift (no C, no dependency): the
        // bounded queue between threads, the render's interruption, the stage clocks and a
        // shard's cost, the first-frame spans, and files written whole (`AtomicFile`, `OutputFolder`,
        // `TemporaryFiles`, their `FileError`). Below everything, the drawing library included.
        .target(name: "StoryBase"),
        .target(
            name: "Compositor",
            dependencies: ["StoryBase", "CStoryPNG", "CRasterSupport", "CFreeType"]
        ),
        // The player, in layers: each target imports only those below it, so the compiler keeps
        // the data path one way (docs/ARCHITECTURE.md draws the graph). They live under
        // Sources/StoryPlayer/, and the StoryPlayer product re-exports them.
        // The storyboard and its JSON: what a user writes.
        .target(name: "StoryModel", dependencies: ["Compositor"], path: "Sources/StoryPlayer/StoryModel"),
        // The FFmpeg, libheif, Little CMS and libass owners (the clip's muxer and encoders among
        // them), decoding, probing, sound, captions, and the C-bound concurrency primitives (the
        // interrupt gate, the picture pool). Every C object is owned here.
        .target(
            name: "StoryMedia",
            dependencies: ["StoryBase", "StoryModel", "CFFmpeg", "CHEIF", "CLittleCMS", "CLibass", "CStoryWHEP", "Compositor"],
            path: "Sources/StoryPlayer/StoryMedia",
            // The fault seam (`FFmpegFaults`) exists in debug builds only, which is what the
            // tests run; a release build (the CLI users run) has none of it, as swift-system
            // builds its mocking only with ENABLE_MOCKING.
            swiftSettings: [.define("ENABLE_FFMPEG_FAULTS", .when(configuration: .debug))]
        ),
        // The lifecycle trace: the events players record, reading them back, and `check`.
        .target(name: "StoryTrace", dependencies: ["StoryBase", "StoryModel", "Compositor"],
                path: "Sources/StoryPlayer/StoryTrace"),
        // Players, rooms, the viewer and its gestures.
        .target(name: "StoryPlayback", dependencies: ["StoryBase", "StoryModel", "StoryMedia", "StoryTrace", "Compositor"],
                path: "Sources/StoryPlayer/StoryPlayback"),
        // The end of the data path: the clip writer (MP4, WebM, GIF, WebP, APNG) and its export
        // formats, and the loudness meter. It sees FFmpeg for the encoders' names, types and
        // constants; every C object it uses (codec, muxer, frame, scaler, filter graph) is owned
        // in StoryMedia, through `package` methods.
        .target(name: "StoryEncode",
                dependencies: ["StoryBase", "StoryModel", "StoryMedia", "Compositor", "CFFmpeg"],
                path: "Sources/StoryPlayer/StoryEncode"),
        // The render loop and its outputs (frames, clip, report, shards).
        .target(name: "StoryRender",
                dependencies: ["StoryBase", "StoryModel", "StoryMedia", "StoryTrace", "StoryPlayback", "StoryEncode", "Compositor"],
                path: "Sources/StoryPlayer/StoryRender"),
        // What a package that depends on live-stories imports: every layer, re-exported.
        .target(name: "StoryPlayer",
                dependencies: ["StoryBase", "StoryModel", "StoryMedia", "StoryTrace", "StoryPlayback", "StoryEncode", "StoryRender"],
                path: "Sources/StoryPlayer/Exports"),

        // MARK: - Command line
        .executableTarget(
            name: "render-stories",
            dependencies: [
                "StoryPlayer", "Compositor", "CMemoryPolicy",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + (withStudio ? ["StoryStudio"] : []),
            // `studio` exists only when the StoryStudio target does (see `withStudio`).
            swiftSettings: withStudio ? [.define("STORY_STUDIO")] : []
        ),

        // MARK: - Tests
        // What the test targets share (scratch folders, the seeded generator, fixture paths):
        // test targets cannot import one another, so it is a regular target, but in no product,
        // so a package that depends on live-stories never builds it. Tests/Support also holds
        // the Python servers and publishers live tests run in place: clock-code.py, the
        // low-latency origin (ll_origin.py) and the WHEP peer (whep_peer.py), with their checks.
        .target(name: "StoryTestSupport", path: "Tests/Support",
                exclude: ["clock-code.py", "ll_origin.py", "ll_origin_check.py", "whep_peer.py", "whep_check.py", "__pycache__"]),
        // CStoryPNG directly too: its checksum is tested against a plain reference.
        .testTarget(name: "CompositorTests", dependencies: ["Compositor", "CStoryPNG", "StoryTestSupport"]),
        // Fixtures are read in place (by #filePath), so they are not bundled as resources.
        .testTarget(name: "StoryPlayerTests", dependencies: ["StoryPlayer", "StoryBase", "StoryModel", "StoryMedia", "StoryTrace",
                                                            "StoryPlayback", "StoryEncode", "StoryRender", "Compositor", "CFFmpeg", "CHEIF", "CLittleCMS", "StoryTestSupport"],
                    exclude: ["Fixtures"],
                    swiftSettings: [.define("ENABLE_FFMPEG_FAULTS", .when(configuration: .debug))],
                    // The HEIF tests encode their photos with libheif, called directly.
                    linkerSettings: [.linkedLibrary("heif")]),
        // Runs the built executable, so it depends on it to have it built first.
        .testTarget(name: "RenderStoriesTests",
                    dependencies: ["render-stories", "StoryPlayer", "Compositor", "StoryTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: - Studio
// Its own target, so the libraries never depend on the web server; added last, and only when
// LIVE_STORIES_NO_STUDIO is unset.
if withStudio {
    package.targets += [
        .target(
            name: "StoryStudio",
            dependencies: [
                "StoryPlayer", "Compositor",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("Page/studio.html")]
        ),
        .testTarget(name: "StudioTests",
                    dependencies: ["StoryStudio", "render-stories", "StoryPlayer", "Compositor", "StoryTestSupport"]),
    ]
}
