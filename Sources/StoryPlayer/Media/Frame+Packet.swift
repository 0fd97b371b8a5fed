import CFFmpeg

/// Owns an `AVFrame` (`av_frame_alloc` / `av_frame_free`).
final class Frame {
    private(set) var pointer: UnsafeMutablePointer<AVFrame>?

    init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
    }

    func close() {
        if pointer != nil { av_frame_free(&pointer) }
    }

    deinit { close() }
}

/// Owns an `AVPacket` (`av_packet_alloc` / `av_packet_free`).
final class Packet {
    private(set) var pointer: UnsafeMutablePointer<AVPacket>?

    init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
    }

    func close() {
        if pointer != nil { av_packet_free(&pointer) }
    }

    deinit { close() }
}
