package import CFFmpeg
import Synchronization

/// Owns an `AVFrame` (`av_frame_alloc` / `av_frame_free`). Callers read and set its fields
/// through the accessors below (`Frame+Fields`); the C calls that take a frame are methods of
/// the owner that makes them (`CodecContext.receive(into:)`, `FilterGraph.filter(_:into:)`,
/// `ScaleContext.scale(_:into:stride:)`, `ResampleContext.interleavedStereo(_:)`).
package final class Frame {
    private var pointer: UnsafeMutablePointer<AVFrame>?

    /// Allocated and not yet freed, process-wide (see `FormatContext.alive`).
    package static let alive = Atomic<Int>(0)

    package init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
        Frame.alive.add(1, ordering: .relaxed)
    }

    /// Lends the `AVFrame` to another owner's C call (a decoder's `avcodec_receive_frame`, a
    /// filter graph's, swscale's, swresample's) and to this type's own extensions, for the length
    /// of `body` only. Nothing outside StoryMedia can call it (`AVFrame` is not visible there),
    /// and inside it only the owners' wrappers do: callers use the methods and accessors.
    func withUnsafeAVFrame<R, E: Error>(_ body: (UnsafeMutablePointer<AVFrame>) throws(E) -> R) throws(E) -> R {
        guard let pointer else { preconditionFailure("using a frame after close()") }
        return try body(pointer)
    }

    func close() {
        if pointer != nil {
            av_frame_free(&pointer)
            Frame.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}

/// Owns an `AVPacket` (`av_packet_alloc` / `av_packet_free`). A demuxer reads into it
/// (`FormatContext.readFrame(into:)`), a decoder takes it (`CodecContext.send(_:)`), an encoder
/// fills it (`CodecContext.receive(packet:)`) and the muxer writes it (`MuxerContext.write`).
package final class Packet {
    private var pointer: UnsafeMutablePointer<AVPacket>?

    /// Allocated and not yet freed, process-wide (see `FormatContext.alive`).
    package static let alive = Atomic<Int>(0)

    package init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
        Packet.alive.add(1, ordering: .relaxed)
    }

    /// Lends the `AVPacket` to another owner's C call (`av_read_frame`, `avcodec_send_packet`,
    /// `avcodec_receive_packet`, `av_interleaved_write_frame`) for the length of `body` only, as
    /// `Frame.withUnsafeAVFrame` does.
    func withUnsafeAVPacket<R, E: Error>(_ body: (UnsafeMutablePointer<AVPacket>) throws(E) -> R) throws(E) -> R {
        guard let pointer else { preconditionFailure("using a packet after close()") }
        return try body(pointer)
    }

    /// The stream the packet belongs to (`stream_index`).
    package var streamIndex: Int32 { withUnsafeAVPacket { $0.pointee.stream_index } }
    /// Its presentation timestamp (`pts`), in its stream's time base.
    package var presentationTimestamp: Int64 { withUnsafeAVPacket { $0.pointee.pts } }
    /// Its decoding timestamp (`dts`), in its stream's time base.
    package var decodingTimestamp: Int64 { withUnsafeAVPacket { $0.pointee.dts } }
    /// Moves both timestamps by `ticks` of its time base.
    package func shift(by ticks: Int64) {
        withUnsafeAVPacket { packet in
            if packet.pointee.pts != cffmpeg_nopts_value() { packet.pointee.pts -= ticks }
            if packet.pointee.dts != cffmpeg_nopts_value() { packet.pointee.dts -= ticks }
        }
    }
    /// Its payload's size in bytes.
    package var size: Int { withUnsafeAVPacket { Int($0.pointee.size) } }
    /// A new packet referring to the same payload (`av_packet_ref`: no copy of the bytes), for
    /// another muxer: each muxer's write takes its packet's reference.
    package func reference() -> Packet {
        let copy = Packet()
        let status = copy.withUnsafeAVPacket { target in withUnsafeAVPacket { av_packet_ref(target, $0) } }
        precondition(status >= 0, "av_packet_ref: out of memory")
        return copy
    }
    /// Whether it holds a keyframe (`AV_PKT_FLAG_KEY`).
    package var isKeyframe: Bool { withUnsafeAVPacket { $0.pointee.flags & AV_PKT_FLAG_KEY != 0 } }
    /// How long the packet shows, in its time base (0: unknown).
    package var duration: Int64 {
        get { withUnsafeAVPacket { $0.pointee.duration } }
        set { withUnsafeAVPacket { $0.pointee.duration = newValue } }
    }

    /// Its payload, for the length of `body` (empty when it has none).
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeAVPacket { packet in
            guard let data = packet.pointee.data, packet.pointee.size > 0 else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
            return body(UnsafeRawBufferPointer(start: data, count: Int(packet.pointee.size)))
        }
    }

    /// `av_packet_unref`: drops the payload, keeping the packet for the next read.
    package func unref() { withUnsafeAVPacket { av_packet_unref($0) } }

    package func close() {
        if pointer != nil {
            av_packet_free(&pointer)
            Packet.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}
