/// What a push has to send, oldest first, bounded by time: the encoder's thread adds, the push's
/// thread takes. Sending starts (and restarts, after a loss or a drop) at a video keyframe, since
/// nothing before one can be decoded at the far end.
struct PushQueue {
    private var packets: [QueuedPacket] = []
    /// Packets are dropped until the next video keyframe.
    private var needsKeyframe = true
    /// The first video second dropped since sending last went on, said when it resumes.
    private var lostFrom: Double?
    /// Where sending last started, at a keyframe: sound timed before it is not sent (it reaches
    /// the encoder later than its pictures, and a muxer takes no timestamps before its first).
    private var resumedAt = 0.0
    /// The recording ends: send what is queued, then close.
    var finishing = false

    /// Queues a packet. When more than `limit` seconds of video wait, the whole queue is
    /// dropped, and so is what follows until a keyframe. Returns the seconds of video lost, once
    /// sending resumes at that keyframe.
    mutating func add(_ packet: QueuedPacket, limit: Double) -> Double? {
        let isKeyframe = packet.stream == .video && packet.packet.isKeyframe
        if needsKeyframe {
            guard isKeyframe else {
                if packet.stream == .video { lostFrom = lostFrom ?? packet.seconds }
                return nil
            }
            needsKeyframe = false
            resumedAt = packet.seconds
            packets.append(packet)
            defer { lostFrom = nil }
            return lostFrom.map { packet.seconds - $0 }
        }
        if packet.stream == .video, let first = firstVideoSeconds, packet.seconds - first > limit {
            lostFrom = first
            packets.removeAll()
            needsKeyframe = true
            return add(packet, limit: limit)
        }
        packets.append(packet)
        return nil
    }

    private var firstVideoSeconds: Double? { packets.first { $0.stream == .video }?.seconds }

    /// A new connection: what waits before the last keyframe queued is dropped, so the ingest
    /// starts with a picture it can decode. Returns the seconds of video so lost.
    mutating func startAtKeyframe() -> Double {
        guard let key = packets.lastIndex(where: { $0.stream == .video && $0.packet.isKeyframe }) else {
            if let first = firstVideoSeconds { lostFrom = lostFrom ?? first }
            packets.removeAll()
            needsKeyframe = true
            return 0
        }
        let lost = firstVideoSeconds.map { packets[key].seconds - $0 } ?? 0
        resumedAt = packets[key].seconds
        packets.removeFirst(key)
        return lost
    }

    /// The next packet to send.
    mutating func next() -> QueuedPacket? {
        while !packets.isEmpty {
            let packet = packets.removeFirst()
            if packet.stream == .video || packet.seconds >= resumedAt - 1e-9 { return packet }
        }
        return nil
    }
}
