// swift-tools-version:6.0
import PackageDescription

/// The Debian packages that provide the C libraries this package links.
/// `scripts/install-deps.sh` installs the same list; keep the two in step.
let ffmpegPackages = ["libavformat-dev", "libavcodec-dev", "libavfilter-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"]
let freetypePackages = ["libfreetype-dev"]
let photoPackages = ["libheif-dev", "liblcms2-dev"]
let captionPackages = ["libass-dev"]
let shapingPackages = ["libharfbuzz-dev"]
let webpPackages = ["libwebp-dev"]
/// GStreamer's headers (CStoryWHEP is compiled against them; it opens the libraries with dlopen).
let gstreamerPackages = ["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev", "libgstreamer-plugins-bad1.0-dev"]

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
        // Colour emoji: HarfBuzz shapes an emoji's sequence into its font's glyph, FreeType draws
        // the glyph's colour bitmap (Noto Color Emoji, fonts-noto-color-emoji); libass lays the line.
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(shapingPackages)]),
        // Animated WebP stickers: libwebp's demuxer and animation decoder (FFmpeg 5.1 reads still WebP only).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(webpPackages)]),
        // libpng reports errors with setjmp/longjmp, which Swift frames cannot survive,
        // so every libpng call lives in this C target and returns plain error codes. It also
        // holds the deflate coder for the run-length and Huffman-only strategies (zlib's
        // crc32 only; Adler-32 is its own, with AVX2), which is where the frame time went, and
        // the reader of those frames, which inflates with libdeflate (`compare` reads thousands).
        .target(
            name: "CStoryPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("deflate")]
        ),
        // The rasterizer's span kernel (AVX2 gathers and FMA, chosen at run time) and its cache
        // prefetch, which Swift cannot express.
        .target(name: "CRasterSupport"),
        // glibc's mallopt and malloc_trim, which Swift's Glibc module does not import.
        .target(name: "CMemoryPolicy"),
        // GStreamer's WebRTC, SDP and app headers and GLib's, for CStoryWHEP: their include paths
        // and none of their libraries. Named by the path of a pkg-config file of its own
        // (gstreamer-headers.pc, beside its module map, says why not gstreamer-webrtc-1.0.pc),
        // whose requirements are private, which SwiftPM reads for -I flags only; so nothing
        // links GStreamer (`ldd render-stories` lists none of it). The path has no space in any
        // checkout SwiftPM makes; a package folder whose path has one cannot build CStoryWHEP.
        .systemLibrary(
            name: "CGStreamerWebRTC",
            pkgConfig: Context.packageDirectory + "/Sources/CGStreamerWebRTC/gstreamer-headers.pc",
            providers: [.apt(gstreamerPackages)]
        ),
        // WebRTC playback (WHEP): every call of GStreamer's webrtcbin, which Debian 12 has (it
        // has no libdatachannel). Compiled against GStreamer's headers, linked to none of its
        // libraries: it opens GStreamer on first use (dlopen), so a render without a WHEP source
        // pays nothing at start. docs/live.md says why this stack.
        .target(name: "CStoryWHEP", dependencies: ["CGStreamerWebRTC"]),

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
            dependencies: ["StoryBase", "StoryModel", "CFFmpeg", "CHEIF", "CLittleCMS", "CLibass", "CFreeType", "CHarfBuzz", "CWebP", "Compositor"],
            path: "Sources/StoryPlayer/StoryMedia",
            // The fault seam (`FFmpegFaults`) exists in debug builds only, which is what the
            // tests run; a release build (the CLI users run) has none of it, as swift-system
            // builds its mocking only with ENABLE_MOCKING.
            swiftSettings: [.define("ENABLE_FFMPEG_FAULTS", .when(configuration: .debug))]
        ),
        // The live protocols, a folder each (HLS, DASH, WHEP, Push), behind one `LiveSource`
        // that opens a source for its decoder and says what playback asks of its protocol
        // (docs/ARCHITECTURE.md, "Where to add a live protocol"). FFmpeg for its error codes and
        // types only: the C objects it reads through are owned in StoryMedia. CStoryWHEP, the
        // WHEP protocol's own C, is owned here (`WHEPSession`).
        .target(name: "StoryLive", dependencies: ["StoryBase", "StoryModel", "StoryMedia", "CFFmpeg", "CStoryWHEP"],
                path: "Sources/StoryPlayer/StoryLive"),
        // The lifecycle trace: the events players record, reading them back, and `check`.
        .target(name: "StoryTrace", dependencies: ["StoryBase", "StoryModel", "Compositor"],
                path: "Sources/StoryPlayer/StoryTrace"),
        // Players, rooms, the viewer and its gestures.
        .target(name: "StoryPlayback", dependencies: ["StoryBase", "StoryModel", "StoryMedia", "StoryLive", "StoryTrace", "Compositor"],
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
                dependencies: ["StoryBase", "StoryModel", "StoryMedia", "StoryLive", "StoryTrace", "StoryPlayback", "StoryEncode",
                               "StoryRender"],
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
        // One test target per library target, each in Tests/<Target>Tests, reaching its layer's
        // internals with `@testable import`. A test file sits with the layer of what it checks;
        // a test of a whole render sits in StoryRenderTests. docs/testing.md says how
        // Tests/test-plan.txt sorts classes into `make test`'s fast and slow groups and the
        // sanitizer runs.
        //
        // What the test targets share: test targets cannot import one another, so these are
        // regular targets, in no product (a package that depends on live-stories never builds
        // them). StoryTestSupport: scratch folders, the seeded generator, fixture paths, the
        // programs tests run (the built render-stories, ffmpeg, ImageMagick), the live servers and
        // the clock code. Compositor only for the clock code's pictures. Tests/Support/Python
        // holds the Python servers, publishers and browser drivers the tests run in place.
        .target(name: "StoryTestSupport", dependencies: ["Compositor"], path: "Tests/Support",
                exclude: ["Python", "Player"]),
        // The player's test helpers (a storyboard from JSON text, the one way tests render, a play
        // of the counter clip): above every player layer, so only the player's test targets use it.
        .target(name: "StoryPlayerTestSupport",
                dependencies: ["StoryTestSupport", "StoryBase", "StoryModel", "StoryMedia", "StoryTrace", "StoryPlayback", "StoryRender", "Compositor"],
                path: "Tests/Support/Player"),
        .testTarget(name: "StoryTestSupportTests", dependencies: ["StoryTestSupport"]),
        .testTarget(name: "StoryBaseTests", dependencies: ["StoryBase"]),
        // CStoryPNG directly too: its checksum is tested against a plain reference.
        .testTarget(name: "CompositorTests", dependencies: ["Compositor", "CStoryPNG", "StoryTestSupport"]),
        // Fixtures (Tests/Fixtures) are read in place (by #filePath), so they are not bundled.
        // StoryRender for the one test whose subject (a file cut short) reaches a render's notices.
        .testTarget(name: "StoryModelTests",
                    dependencies: ["StoryModel", "StoryMedia", "StoryRender", "Compositor", "StoryPlayerTestSupport"]),
        // StoryPlayback for the tests that play a decoded source through its player; StoryRender, StoryTrace and StoryEncode for the five files with a test of
        // what a render's frames, summary or clip show (tone mapping, faults, a phone video).
        .testTarget(name: "StoryMediaTests",
                    dependencies: ["StoryBase", "StoryModel", "StoryMedia", "StoryPlayback", "StoryRender", "StoryTrace", "StoryEncode",
                                   "Compositor", "CFFmpeg", "CHEIF", "CLittleCMS", "StoryPlayerTestSupport"],
                    swiftSettings: [.define("ENABLE_FFMPEG_FAULTS", .when(configuration: .debug))],
                    // The HEIF tests encode their photos with libheif, called directly.
                    linkerSettings: [.linkedLibrary("heif")]),
        // The readers of the live protocols (playlists, manifests, the WHEP answer and signalling);
        // StoryPlayback for a playlist watched beside a play.
        .testTarget(name: "StoryLiveTests",
                    dependencies: ["StoryModel", "StoryMedia", "StoryLive", "StoryPlayback", "CStoryWHEP", "StoryPlayerTestSupport"]),
        .testTarget(name: "StoryTraceTests",
                    dependencies: ["StoryBase", "StoryTrace", "Compositor", "StoryPlayerTestSupport"]),
        .testTarget(name: "StoryPlaybackTests",
                    dependencies: ["StoryBase", "StoryModel", "StoryMedia", "StoryLive", "StoryTrace", "StoryPlayback", "StoryEncode", "StoryRender",
                                   "Compositor", "StoryPlayerTestSupport"]),
        .testTarget(name: "StoryEncodeTests", dependencies: ["StoryMedia", "StoryEncode", "StoryTestSupport", "Compositor"]),
        .testTarget(name: "StoryRenderTests",
                    dependencies: ["StoryBase", "StoryModel", "StoryMedia", "StoryTrace", "StoryPlayback", "StoryEncode", "StoryRender",
                                   "Compositor", "CFFmpeg", "StoryPlayerTestSupport"]),
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
            // The page and its scripts, put together by `StudioPage` into the one page served.
            resources: [.embedInCode("Page/studio.html"), .embedInCode("Page/studio-frames.js"),
                        .embedInCode("Page/studio-board.js"), .embedInCode("Page/studio-form.js"),
                        .embedInCode("Page/studio-music.js")]
        ),
        .testTarget(name: "StudioTests",
                    dependencies: ["StoryStudio", "render-stories", "StoryPlayer", "Compositor", "StoryTestSupport"]),
    ]
}
