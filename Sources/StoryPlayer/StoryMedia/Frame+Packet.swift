internal import CFFmpeg
import Synchronization

/// Owns an `AVFrame` (`av_frame_alloc` / `av_frame_free`).
final class Frame {
    private(set) var pointer: UnsafeMutablePointer<AVFrame>?

    /// Allocated and not yet freed, process-wide (see `FormatContext.alive`).
    static let alive = Atomic<Int>(0)

    init() {
        guard let frame = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = frame
        Frame.alive.add(1, ordering: .relaxed)
    }

    func close() {
        if pointer != nil {
            av_frame_free(&pointer)
            Frame.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}

/// Owns an `AVPacket` (`av_packet_alloc` / `av_packet_free`).
final class Packet {
    private(set) var pointer: UnsafeMutablePointer<AVPacket>?

    /// Allocated and not yet freed, process-wide (see `FormatContext.alive`).
    static let alive = Atomic<Int>(0)

    init() {
        guard let packet = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = packet
        Packet.alive.add(1, ordering: .relaxed)
    }

    func close() {
        if pointer != nil {
            av_packet_free(&pointer)
            Packet.alive.subtract(1, ordering: .relaxed)
        }
    }

    deinit { close() }
}
