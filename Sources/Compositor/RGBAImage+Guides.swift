// MARK: - Safe-zone guides and masks

extension RGBAImage {
    /// The platform's covered zones as a translucent tint with a thin outline (`--safe-zones`):
    /// a guide for whoever lays out a story, drawn over the whole frame, not on a cube face.
    public mutating func drawSafeZoneGuides(_ platform: PlatformSafeZones) {
        let tint = RGBAColor(red: 255, green: 48, blue: 96, alpha: 72)
        let line = RGBAColor(red: 255, green: 48, blue: 96, alpha: 220)
        let stroke = max(1, Double(width) / 360)
        for zone in platform.zones {
            let x = zone.x.lowerBound * Double(width), y = zone.y.lowerBound * Double(height)
            let w = (zone.x.upperBound - zone.x.lowerBound) * Double(width)
            let h = (zone.y.upperBound - zone.y.lowerBound) * Double(height)
            fillRoundedRect(x: x, y: y, width: w, height: h, radius: 0, color: tint)
            fillRoundedRect(x: x, y: y, width: w, height: stroke, radius: 0, color: line)
            fillRoundedRect(x: x, y: y + h - stroke, width: w, height: stroke, radius: 0, color: line)
            fillRoundedRect(x: x, y: y, width: stroke, height: h, radius: 0, color: line)
            fillRoundedRect(x: x + w - stroke, y: y, width: stroke, height: h, radius: 0, color: line)
        }
    }

    /// Blends `color` through an 8-bit coverage mask (a glyph run's bitmap, as libass returns
    /// it) placed with its top left at (`x`, `y`); the parts outside the picture are clipped.
    /// `stride` is the mask's bytes per row. Opaque pixels blend as every shape does
    /// (`blendOpaque`), others "over" in straight alpha.
    public mutating func blend(mask: UnsafePointer<UInt8>, width maskWidth: Int, height maskHeight: Int, stride: Int,
                               x: Int, y: Int, color: RGBAColor) {
        guard color.alpha > 0 else { return }
        let columns = max(0, -x)..<min(maskWidth, width - x)
        let rows = max(0, -y)..<min(maskHeight, height - y)
        guard !columns.isEmpty, !rows.isEmpty else { return }
        for row in rows {
            for column in columns {
                let coverage = mask[row * stride + column]
                guard coverage > 0 else { continue }
                blend(x: x + column, y: y + row, color: color, coverage: Double(coverage) / 255)
            }
        }
    }
}
