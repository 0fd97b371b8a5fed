internal import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// libavfilter, opened the first time a filter graph is built (`dlopen`, `dlsym`) instead of
/// linked into the program.
///
/// Why: Debian's libavfilter brings about 30 libraries of its own (libplacebo, Vulkan, X11,
/// LAPACK, rubberband, …), and loading and binding them cost every process about 60 ms of CPU at
/// start, half of what a process spends before its first frame. Only HDR tone mapping,
/// animated exports and `--loudness` use filters, and most renders do none of them; a sharded
/// render pays the start once per shard.
///
/// The members are libavfilter's own functions, called through their addresses; their types
/// are the ones the headers declare (CFFmpeg's shim includes them, for the types alone).
struct FilterLibrary: @unchecked Sendable {
    // @unchecked: every stored property is a C function's address, which does not change once
    // looked up and which any thread may call; the compiler cannot see that of
    // `@convention(c)` values.

    /// `avfilter_graph_alloc`
    let allocateGraph: @convention(c) () -> UnsafeMutablePointer<AVFilterGraph>?
    /// `avfilter_graph_free`
    let freeGraph: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterGraph>?>?) -> Void
    /// `avfilter_get_by_name`
    let filterNamed: @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    /// `avfilter_graph_create_filter`
    let createFilter: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterContext>?>?, UnsafePointer<AVFilter>?,
                                      UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
                                      UnsafeMutablePointer<AVFilterGraph>?) -> Int32
    /// `avfilter_inout_alloc`
    let allocateEnds: @convention(c) () -> UnsafeMutablePointer<AVFilterInOut>?
    /// `avfilter_inout_free`
    let freeEnds: @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?) -> Void
    /// `avfilter_graph_parse_ptr`
    let parseGraph: @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafePointer<CChar>?,
                                    UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?,
                                    UnsafeMutablePointer<UnsafeMutablePointer<AVFilterInOut>?>?, UnsafeMutableRawPointer?) -> Int32
    /// `avfilter_graph_config`
    let configureGraph: @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafeMutableRawPointer?) -> Int32
    /// `av_buffersrc_add_frame_flags`
    let addFrame: @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?, Int32) -> Int32
    /// `av_buffersrc_close`
    let closeSource: @convention(c) (UnsafeMutablePointer<AVFilterContext>?, Int64, UInt32) -> Int32
    /// `av_buffersink_get_frame`
    let takeFrame: @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32
    /// `av_buffersink_get_time_base`
    let sinkTimeBase: @convention(c) (UnsafePointer<AVFilterContext>?) -> AVRational

    /// The file the headers were written for: its major version is the ABI's.
    static let fileName = "libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)"

    /// The library, opened once per process, or why it cannot be (checked again by no one: a
    /// library that is missing stays missing while the process runs).
    private static let opened: Result<FilterLibrary, MediaError> = open()

    /// The library, opened on the first call: `dlopen` of `fileName`, then `dlsym` of each
    /// function. Throws when it is not installed or lacks a function (a `.convert` error that
    /// names the file), as a filter that fails to configure does.
    static func loaded() throws(MediaError) -> FilterLibrary {
        if let injected = FFmpegFaults.injected(.loadFilters) {
            throw MediaError(.convert, "cannot load \(fileName)", averror: injected)
        }
        return try opened.get()
    }

    private static func open() -> Result<FilterLibrary, MediaError> {
        // RTLD_LOCAL: its symbols stay out of the program's global scope, so loading it never
        // changes what an already bound call resolves to.
        guard let handle = dlopen(fileName, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(MediaError(.convert, "cannot load \(fileName) (filters: HDR tone mapping, animations, --loudness)", cause: why))
        }
        // Never closed: the process keeps it, as it would a linked library.
        do throws(MediaError) {
            return .success(FilterLibrary(
                allocateGraph: try function("avfilter_graph_alloc", in: handle),
                freeGraph: try function("avfilter_graph_free", in: handle),
                filterNamed: try function("avfilter_get_by_name", in: handle),
                createFilter: try function("avfilter_graph_create_filter", in: handle),
                allocateEnds: try function("avfilter_inout_alloc", in: handle),
                freeEnds: try function("avfilter_inout_free", in: handle),
                parseGraph: try function("avfilter_graph_parse_ptr", in: handle),
                configureGraph: try function("avfilter_graph_config", in: handle),
                addFrame: try function("av_buffersrc_add_frame_flags", in: handle),
                closeSource: try function("av_buffersrc_close", in: handle),
                takeFrame: try function("av_buffersink_get_frame", in: handle),
                sinkTimeBase: try function("av_buffersink_get_time_base", in: handle)))
        } catch {
            return .failure(error)
        }
    }

    /// `dlsym` of `name`, as the function type `F` the header declares it with.
    private static func function<F>(_ name: String, in handle: UnsafeMutableRawPointer) throws(MediaError) -> F {
        guard let address = dlsym(handle, name) else {
            throw MediaError(.convert, "\(fileName) has no \(name)", cause: dlerror().map { String(cString: $0) } ?? "missing")
        }
        return unsafeBitCast(address, to: F.self)
    }
}
