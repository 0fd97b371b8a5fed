internal import CFFmpeg

/// The URLs a demuxer opened, in order: the playlist, then each segment of a live HLS stream.
///
/// FFmpeg's HLS demuxer picks the segment it starts at (`live_start_index`, three from the end)
/// from its own read of the playlist. A read of ours just before may be a segment older, when
/// the publisher lists one in between; the live edge, measured from where the demuxer started,
/// was then a whole segment off (seen in CI: 4.27 s behind a 3 s target while the pictures said
/// otherwise). Its first segment's URL says where it really started (`HLSPlaylist.sequence(openedFirstAmong:)`).
///
/// Installed by wrapping the context's `io_open` (the callback every FFmpeg demuxer opens
/// nested resources through; the HLS demuxer opens its playlist and segments with it), with
/// this object as the context's `opaque`. Used on the thread that owns the demuxer: FFmpeg calls
/// the callback from the calls that read, and the owner reads `urls` between them.
final class DemuxerOpenings {
    typealias IOOpen = @convention(c) (UnsafeMutablePointer<AVFormatContext>?,
                                       UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                                       UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Int32

    private(set) var urls: [String] = []
    /// The last opening, when it failed with an HTTP status (`FFmpegError.httpStatus`): FFmpeg's
    /// HLS demuxer passes over a segment it cannot open, and its open or read then times out
    /// saying nothing of the 404s that were why.
    private(set) var refused: (url: String, status: String)?
    /// The `io_open` the context came with (libavformat's own), which does the opening.
    private var originalOpen: IOOpen?

    init() {}

    /// Wraps `context`'s `io_open`; the context must not outlive this object (its owner keeps it).
    func install(in context: UnsafeMutablePointer<AVFormatContext>) {
        originalOpen = context.pointee.io_open
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.io_open = recordingOpen
    }

    fileprivate func open(_ context: UnsafeMutablePointer<AVFormatContext>?,
                          _ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                          _ url: UnsafePointer<CChar>?, _ flags: Int32,
                          _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
        let name = url.map { String(cString: $0) }
        if let name { urls.append(name) }
        guard let originalOpen else { return cffmpeg_averror(EINVAL) }
        let status = originalOpen(context, pb, url, flags, options)
        refused = status < 0 ? FFmpegError(status).httpStatus.map { (name ?? "?", $0) } : nil
        return status
    }

    /// What a timeout while opening adds when the last opening was refused: " (its segments
    /// answered HTTP 404 Not Found: the last asked for was …)"; nil otherwise.
    var refusalDetail: String? {
        refused.map { " (its segments answered \($0.status): the last asked for was \($0.url))" }
    }
}

/// `AVFormatContext.io_open` while `DemuxerOpenings` listens: notes the URL, then opens it as
/// libavformat would have.
private func recordingOpen(_ context: UnsafeMutablePointer<AVFormatContext>?,
                           _ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                           _ url: UnsafePointer<CChar>?, _ flags: Int32,
                           _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let opaque = context?.pointee.opaque else { return cffmpeg_averror(EINVAL) }
    return Unmanaged<DemuxerOpenings>.fromOpaque(opaque).takeUnretainedValue().open(context, pb, url, flags, options)
}
