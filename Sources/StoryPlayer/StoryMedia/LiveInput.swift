import StoryModel

/// What a live protocol opens for a decoder (`MediaDecoder.init(live:)`): the demuxer its
/// pictures are read from and, for a protocol that sends its sound apart (DASH), that sound.
/// StoryLive makes one per protocol; the decoder itself knows no protocol.
package struct LiveInput {
    package let format: FormatContext
    package let sound: (any LiveSoundReader)?

    package init(format: FormatContext, sound: (any LiveSoundReader)? = nil) {
        self.format = format
        self.sound = sound
    }
}

/// Sound a live protocol reads apart from the pictures, on a thread of its own, started when
/// the play decodes sound and stopped with the decoder (`DASHSound`).
package protocol LiveSoundReader: AnyObject {
    func start(limits: DecodeLimits, reception: SourceReception, name: String)
    /// The sound heard since the last call, in absolute stream seconds.
    func take() -> [SoundBlock]
    func stop(waitingUpTo seconds: Double)
}

/// How a live source is opened, by its protocol (StoryLive's `LiveSource`, one per protocol):
/// for its pictures (`MediaDecoder`) and for its sound read alone (`ItemAudio`, a room
/// participant's).
package protocol LiveOpener: AnyObject {
    func openInput(limits: DecodeLimits, gate: InterruptGate, reception: SourceReception) throws(MediaError) -> LiveInput
    func openSoundInput(limits: DecodeLimits, gate: InterruptGate) throws(MediaError) -> FormatContext
}
