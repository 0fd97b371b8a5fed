internal import CFFmpeg
import Foundation

/// A live source read by this program piece by piece, as one byte stream for a demuxer: a DASH
/// representation's segments (`DASHSegmentFeed`), a Low-Latency HLS playlist's parts
/// (`HLSPartFeed`). Read by one thread at a time, from inside the demuxer's calls.
package protocol SegmentFeed: AnyObject {
    /// Copies up to `count` bytes into `buffer`: their count, `AVERROR_EOF` at the end, or an
    /// FFmpeg error code.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32
    /// Why the bytes stopped coming, when a fetch failed (the demuxer sees only its code).
    var failure: MediaError? { get }
    /// Whether they stopped because the source says its presentation ended.
    var ended: Bool { get }
    /// How long its packets wait in a jitter buffer (ms), as it says now (a WebRTC session's,
    /// `WHEPSession`): ask seldom. Nil for a feed without one.
    var jitterBufferMs: Double? { get }
}

extension SegmentFeed {
    package var jitterBufferMs: Double? { nil }
}

/// Why a feed may not fetch `url`, a `piece` its playlist or manifest names ("an HLS part", "a
/// DASH segment"): a list may name pieces anywhere, but only through the protocols the
/// storyboard allows its source. Nil when it may.
package func segmentRefusal(of url: String, piece: String, protocols: [String]) -> MediaError? {
    guard let scheme = URL(string: url)?.scheme?.lowercased(), protocols.contains(scheme) else {
        return MediaError(.open, "refused \(piece) at \(url)", cause: "the storyboard's protocols do not allow it")
    }
    return nil
}

/// The bytes of the piece a `SegmentFeed` fetched last (a segment, a part, a chunk), handed to
/// the demuxer as it reads.
package struct FetchedBytes {
    private var bytes: [UInt8] = []
    private var position = 0

    package init() {}

    /// Every byte has been handed on: the feed fetches what comes next.
    package var isUsedUp: Bool { position >= bytes.count }
    /// How many bytes the piece had.
    package var count: Int { bytes.count }

    /// Starts handing on `piece`.
    package mutating func replace(with piece: [UInt8]) {
        bytes = piece
        position = 0
    }

    /// Copies up to `count` of the bytes not yet handed on into `buffer`; how many it copied.
    package mutating func copy(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        let copied = min(count, bytes.count - position)
        bytes.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + position, count: copied)
        }
        position += copied
        return Int32(copied)
    }
}

/// Owns the `AVIOContext` (`avio_alloc_context`) through which a demuxer reads a
/// `SegmentFeed`; frees it and its buffer with `avio_context_free`.
///
/// The demuxer is opened on it with `AVFMT_FLAG_CUSTOM_IO` (`FormatContext(input:)`), so
/// closing the demuxer leaves it be: its `FormatContext` closes it right after.
package final class SegmentInput {
    private var pointer: UnsafeMutablePointer<AVIOContext>?
    /// Read by FFmpeg's callback, through this owner (held by its `FormatContext` for as long as
    /// the demuxer can call).
    let feed: any SegmentFeed

    /// The size of the buffer the demuxer reads through.
    package static let bufferSize = 64 * 1024

    package init(feed: any SegmentFeed) throws(MediaError) {
        self.feed = feed
        guard let buffer = av_malloc(SegmentInput.bufferSize) else { throw MediaError(.open, "cannot read the segments", cause: "out of memory") }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        guard let context = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(SegmentInput.bufferSize), 0, opaque,
                                               { opaque, buffer, count in
                                                   guard let opaque, let buffer, count > 0 else { return cffmpeg_averror_eof() }
                                                   return Unmanaged<SegmentInput>.fromOpaque(opaque).takeUnretainedValue()
                                                       .feed.read(into: buffer, count: Int(count))
                                               }, nil, nil)
        else {
            av_free(buffer)
            throw MediaError(.open, "cannot read the segments", cause: "out of memory")
        }
        // Segments come once, in order: the demuxer must not try to seek back.
        context.pointee.seekable = 0
        pointer = context
    }

    /// Makes `context`, a demuxer being opened (`FormatContext(input:)`), read through this input
    /// (`pb`, `AVFMT_FLAG_CUSTOM_IO`): the demuxer then leaves it for this owner to free.
    func install(in context: UnsafeMutablePointer<AVFormatContext>) {
        context.pointee.pb = pointer
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    }

    /// Why the segments stopped coming, when a fetch failed (the demuxer sees only its code).
    var failure: MediaError? { feed.failure }
    /// Whether they stopped because the manifest says the presentation ended.
    var ended: Bool { feed.ended }

    /// `avio_context_free`, with the buffer FFmpeg may have replaced since.
    func close() {
        guard let context = pointer else { return }
        av_freep(&context.pointee.buffer)
        avio_context_free(&pointer)
    }

    deinit { close() }
}
