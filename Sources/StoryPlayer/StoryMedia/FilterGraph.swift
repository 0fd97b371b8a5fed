package import CFFmpeg
import Synchronization

/// What feeds a filter graph, and so its two ends: pictures of one shape (`buffer` and
/// `buffersink`) or sound (`abuffer` and `abuffersink`).
package enum FilterInput {
    /// Pictures of this size and pixel format, stamped in `timeBase` (at `frameRate`, when
    /// known: `fps` needs both).
    case pictures(width: Int32, height: Int32, pixelFormat: Int32, sampleAspectRatio: AVRational,
                  timeBase: AVRational, frameRate: AVRational)
    /// Planar float stereo at `rate` samples a second, stamped in samples.
    case stereoSound(rate: Int)

    var source: String {
        switch self {
        case .pictures: "buffer"
        case .stereoSound: "abuffer"
        }
    }

    var sink: String {
        switch self {
        case .pictures: "buffersink"
        case .stereoSound: "abuffersink"
        }
    }

    /// The source filter's options.
    var arguments: String {
        switch self {
        case .pictures(let width, let height, let pixelFormat, let sampleAspectRatio, let timeBase, let frameRate):
            // 0/1 is "unknown", as the decoder says it; the converter then takes the stream's.
            let aspect = sampleAspectRatio.den > 0 ? sampleAspectRatio : AVRational(num: 0, den: 1)
            return "video_size=\(width)x\(height):pix_fmt=\(pixelFormat):time_base=\(timeBase.num)/\(timeBase.den):"
                + "pixel_aspect=\(aspect.num)/\(aspect.den)"
                + (frameRate.num > 0 ? ":frame_rate=\(frameRate.num)/\(frameRate.den)" : "")
        case .stereoSound(let rate):
            return "sample_rate=\(rate):sample_fmt=fltp:channel_layout=stereo:time_base=1/\(rate)"
        }
    }
}

/// Owns a libavfilter graph of one chain: a source (`FilterInput`), the filters of a
/// description such as `"zscale=t=linear,format=gbrpf32le"`, and a sink
/// (`avfilter_graph_alloc`, `avfilter_graph_parse_ptr`, `avfilter_graph_config` /
/// `avfilter_graph_free`). Its graph and filter contexts do not leave it: pictures and sound go
/// through `filter(_:into:)` or `push`/`pull`.
///
/// Used by one thread at a time (a converter's, a clip writer's, or a loudness meter's).
/// `filter(_:into:)` is for chains that give one picture out for each picture in, as per-pixel
/// filters (`zscale`, `tonemap`) do; `push`/`pull` for the others (an animation's `fps` and
/// `palettegen`, the `ebur128` meter), which may give none, or several, or theirs only at the end.
package final class FilterGraph {
    /// libavfilter's functions (opened on the first graph: `FilterLibrary`).
    private let library: FilterLibrary
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    /// Owned by `graph`, freed with it.
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?

    /// Graphs allocated and not yet freed, process-wide (see `FormatContext.alive`).
    package static let alive = Atomic<Int>(0)

    /// Builds the chain `filters` for pictures of this size and pixel format, run on `threads`
    /// threads (`nb_threads`; 1: on the caller's alone; 0: as many as libavfilter finds useful).
    /// Pictures are stamped in `timeBase` (at `frameRate`, when known: `fps` needs both).
    package convenience init(filters: String, width: Int32, height: Int32, pixelFormat: Int32, sampleAspectRatio: AVRational,
                     threads: Int32, timeBase: AVRational = AVRational(num: 1, den: 1),
                     frameRate: AVRational = AVRational(num: 0, den: 1)) throws(MediaError) {
        try self.init(filters: filters, input: .pictures(width: width, height: height, pixelFormat: pixelFormat,
                                                         sampleAspectRatio: sampleAspectRatio, timeBase: timeBase, frameRate: frameRate),
                      threads: threads)
    }

    /// Builds the chain `filters` fed by `input`, run on `threads` threads. `name` is what its
    /// errors call it ("cannot configure the loudness meter"); by default, the filters.
    package init(filters: String, input: FilterInput, threads: Int32, name: String? = nil) throws(MediaError) {
        let name = name ?? "the filters \(filters)"
        library = try FilterLibrary.loaded()
        guard let graph = library.allocateGraph() else { fatalError("avfilter_graph_alloc: out of memory") }
        self.graph = graph
        FilterGraph.alive.add(1, ordering: .relaxed)
        graph.pointee.nb_threads = threads
        if let injected = FFmpegFaults.injected(.configureFilters) {
            throw MediaError(.convert, "cannot configure \(name)", averror: injected)
        }
        var status = library.createFilter(&source, library.filterNamed(input.source), "in", input.arguments, nil, graph)
        guard status >= 0 else { throw MediaError(.convert, "cannot set up the input of \(name)", averror: status) }
        status = library.createFilter(&sink, library.filterNamed(input.sink), "out", nil, nil, graph)
        guard status >= 0 else { throw MediaError(.convert, "cannot set up the output of \(name)", averror: status) }
        status = FilterGraph.parse(filters, into: graph, between: source, and: sink, library: library)
        guard status >= 0 else { throw MediaError(.convert, "cannot build \(name)", averror: status) }
        status = library.configureGraph(graph, nil)
        guard status >= 0 else { throw MediaError(.convert, "cannot configure \(name)", averror: status) }
    }

    /// `avfilter_graph_parse_ptr` of `filters` into `graph`, its chain's open ends linked to
    /// `source` and `sink`: the chain's input is fed by our source, its output drains into our
    /// sink. Parsing hands back what it left unlinked; that is freed here
    /// (`avfilter_inout_free`).
    private static func parse(_ filters: String, into graph: UnsafeMutablePointer<AVFilterGraph>,
                      between source: UnsafeMutablePointer<AVFilterContext>?,
                      and sink: UnsafeMutablePointer<AVFilterContext>?, library: FilterLibrary) -> Int32 {
        var outputs = library.allocateEnds(), inputs = library.allocateEnds()
        defer {
            library.freeEnds(&outputs)
            library.freeEnds(&inputs)
        }
        guard let chainInput = outputs, let chainOutput = inputs else { fatalError("avfilter_inout_alloc: out of memory") }
        chainInput.pointee.name = av_strdup("in")
        chainInput.pointee.filter_ctx = source
        chainOutput.pointee.name = av_strdup("out")
        chainOutput.pointee.filter_ctx = sink
        return library.parseGraph(graph, filters, &inputs, &outputs, nil)
    }

    /// Runs `picture` through the chain into `output` (unreferenced first):
    /// `av_buffersrc_add_frame_flags` (the picture is kept by its owner) and
    /// `av_buffersink_get_frame`.
    func filter(_ picture: Frame, into output: Frame) throws(MediaError) {
        guard let source, let sink else { preconditionFailure("filtering after close()") }
        output.unref()
        if let injected = FFmpegFaults.injected(.filter) { throw MediaError(.convert, "cannot filter the picture", averror: injected) }
        var status = picture.withUnsafeAVFrame { library.addFrame(source, $0, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)) }
        guard status >= 0 else { throw MediaError(.convert, "cannot filter the picture", averror: status) }
        status = output.withUnsafeAVFrame { library.takeFrame(sink, $0) }
        guard status >= 0 else { throw MediaError(.convert, "the filters gave no picture", averror: status) }
    }

    /// `av_buffersrc_add_frame_flags`: `picture` into the chain (kept by its owner), or nil: the
    /// end, after which the chain gives what it held back (a GIF's pictures, once its palette is
    /// known). 0, or a negative AVERROR code.
    package func push(_ picture: Frame?) -> Int32 {
        guard let source else { preconditionFailure("filtering after close()") }
        if let injected = FFmpegFaults.injected(.filter) { return injected }
        guard let picture else { return library.addFrame(source, nil, 0) }
        return picture.withUnsafeAVFrame { library.addFrame(source, $0, Int32(AV_BUFFERSRC_FLAG_KEEP_REF)) }
    }

    /// `av_buffersrc_close`: the end of the pictures at `pts` (the source's time base), where
    /// the last picture's time ends. The end without a time (`push(nil)`) falls at the last
    /// picture's own time, and `fps` then makes no picture for its last interval: a 3 s render
    /// at 10 fps gave a 15 fps GIF of 44 pictures, 2.93 s. 0, or a negative AVERROR code.
    package func close(at pts: Int64) -> Int32 {
        guard let source else { preconditionFailure("filtering after close()") }
        if let injected = FFmpegFaults.injected(.filter) { return injected }
        return library.closeSource(source, pts, 0)
    }

    /// `av_buffersink_get_frame`: the chain's next picture into `output` (unreferenced first):
    /// 0, EAGAIN when it needs more pictures first, end of file once the end has come through,
    /// or another negative AVERROR code.
    package func pull(into output: Frame) -> Int32 {
        guard let sink else { preconditionFailure("filtering after close()") }
        output.unref()
        if let injected = FFmpegFaults.injected(.filter) { return injected }
        return output.withUnsafeAVFrame { library.takeFrame(sink, $0) }
    }

    /// The time base of the pictures the chain gives (`av_buffersink_get_time_base`): after
    /// `fps=15`, 1/15.
    package var outputTimeBase: AVRational {
        guard let sink else { preconditionFailure("filtering after close()") }
        return library.sinkTimeBase(sink)
    }

    package func close() {
        if graph != nil {
            library.freeGraph(&graph)
            FilterGraph.alive.subtract(1, ordering: .relaxed)
        }
        source = nil
        sink = nil
    }

    deinit { close() }
}
