import Compositor

/// What a failed story shows: a dark card, so a broken item is visible but not alarming.
enum ErrorCard {
    static let color = RGBAColor(red: 0x3a, green: 0x12, blue: 0x18)
}
