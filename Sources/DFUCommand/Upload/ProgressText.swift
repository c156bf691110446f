import DFUCore
import DFUFormats

/// The words and numbers of progress output, shared by the live and the plain renderers.
enum ProgressText {
    /// The phase in words, e.g. "entering bootloader"; `--json` spells the same words with
    /// underscores (``jsonState(_:)``).
    static func state(_ state: DFUState) -> String {
        switch state {
        case .connecting: "connecting"
        case .enablingDFUMode: "entering bootloader"
        case .starting: "starting"
        case .uploading: "uploading"
        case .validating: "validating"
        case .disconnecting: "disconnecting"
        case .markingForTest: "marking for test"
        case .confirming: "confirming"
        case .resetting: "resetting"
        case .waitingForDevice: "waiting for the device to come back"
        case .checkingImages: "checking the images"
        case .completed: "completed"
        case .aborted: "aborted"
        }
    }

    /// The phase as `--json` writes it: the words of ``state(_:)`` joined by underscores, e.g. "entering_bootloader".
    static func jsonState(_ state: DFUState) -> String {
        Self.state(state).split(separator: " ").joined(separator: "_")
    }

    /// Bytes per second as kB/s with one decimal (1 kB = 1000 bytes), e.g. "7.1 kB/s".
    static func speed(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "- kB/s" }
        return "\(decimal(bytesPerSecond / 1000)) kB/s"
    }

    /// A number with one decimal, e.g. "12.3".
    static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// A duration as M:SS (or H:MM:SS), e.g. "1:05".
    static func clock(seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-:--" }
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let ss = secs < 10 ? "0\(secs)" : "\(secs)"
        if hours > 0 { return "\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(ss)" }
        return "\(minutes):\(ss)"
    }

    /// Seconds with one decimal, e.g. "3.2 s".
    static func seconds(_ duration: Duration) -> String { "\(decimal(duration.dfuSecondsValue)) s" }

    /// A bar of `width` cells, e.g. "[#######-------------]".
    static func bar(percent: Int, width: Int = 20) -> String {
        let filled = max(0, min(width, percent * width / 100))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    /// Seconds left for the part at its average speed; nil when unknown.
    static func eta(_ progress: DFUProgress) -> Double? {
        guard progress.averageSpeed > 0, progress.totalBytes >= progress.bytesSent else { return nil }
        return Double(progress.totalBytes - progress.bytesSent) / progress.averageSpeed
    }

    /// The whole progress line of a device, e.g.
    /// "C0:FF:EE:00:12:FF  part 1/2 [####----------------]  21%  4096/19500 B  6.9 kB/s (avg 6.1 kB/s)  ETA 0:02  uploading".
    /// Narrower forms: a shorter bar, without the byte counts, without the average speed; no device label.
    static func line(device: String?, _ progress: DFUProgress, barWidth: Int = 20, bytes: Bool = true,
                     average: Bool = true, state showState: Bool = true) -> String {
        var text = device.map { "\($0)  " } ?? ""
        text += "part \(progress.part)/\(progress.totalParts) \(bar(percent: progress.percent, width: barWidth)) "
        let percent = "\(progress.percent)%"
        text += String(repeating: " ", count: max(0, 4 - percent.count)) + percent
        if bytes { text += "  \(progress.bytesSent)/\(progress.totalBytes) B" }
        if progress.state == .uploading || progress.averageSpeed > 0 {
            text += "  \(speed(progress.currentSpeed))"
            if average { text += " (avg \(speed(progress.averageSpeed)))" }
            text += "  ETA \(eta(progress).map { clock(seconds: $0) } ?? "-:--")"
        }
        return showState ? text + "  " + state(progress.state) : text
    }

    /// The success line of a device, time and speed first so a narrow terminal keeps them, e.g.
    /// "C0:FF:EE:00:12:FF: updated in 3.2 s, 20300 bytes sent at 6.3 kB/s (softdevice_bootloader, application)".
    /// The bytes are those this run sent, the speed is theirs over the time they took, and only when
    /// that time was long enough to measure; bytes a resumed part already had are named apart.
    ///
    /// An SMP upload says what it did to the images, and where they stand: "updated" only when every image
    /// runs confirmed, otherwise "uploaded", with each image's state and the command that takes it on
    /// (`target`: the device as named on the command line), e.g. "C0:FF:EE:00:00:10: uploaded in 48 ms,
    /// 3664 bytes sent (image 0); image 0: marked for test, not running yet: ...; next: dfu reset -d C0:FF:EE:00:00:10".
    static func updated(device: String, target: String? = nil, _ report: DFUUpdateReport) -> String {
        let took = report.elapsed < .seconds(1) ? "\(Int((report.elapsed.dfuSecondsValue * 1000).rounded())) ms" : seconds(report.elapsed)
        let smp = !report.smpImages.isEmpty
        let verb = report.isUpdated ? "updated" : "uploaded"
        var text = "\(device): \(verb) in \(took), \(report.bytesTransferred) bytes sent"
        if let rate = report.transferSpeed { text += " at \(speed(rate))" }
        if report.bytesSent > report.bytesTransferred {
            text += ", \(report.bytesSent - report.bytesTransferred) already on the device"
        }
        if smp {
            text += " (" + report.smpImages.map { "image \($0.image)" }.joined(separator: ", ") + "); "
            text += SMPImageText.describe(report.smpImages)
            if let next = SMPImageText.next(report.smpImages, device: target ?? device) { text += "; next: \(next)" }
            return text
        }
        text += " (\(report.partsSent.map(\.rawValue).joined(separator: ", ")))"
        if !report.partsSkipped.isEmpty {
            text += "; skipped \(report.partsSkipped.map(\.rawValue).joined(separator: ", ")) (rejected by the bootloader as already installed or too old)"
        }
        return text
    }

    /// The closing line of a run over several devices, naming each failure.
    static func summary(_ outcomes: [DeviceOutcome]) -> String {
        let updated = outcomes.filter { $0.code == .success }.count
        let failed = outcomes.filter { $0.code != .success }
        var text = "\(outcomes.count) devices: \(updated) updated, \(failed.count) not updated"
        if !failed.isEmpty { text += " (" + failed.map(\.device).joined(separator: ", ") + ")" }
        return text
    }
}
