import DFUCrypto
import DFUFormats

/// The machine's transitions: what each answer of the bootloader leads to, object by object.
extension SecureDFUStateMachine {
    var expectedOpCode: SecureDFUOpCode {
        switch phase {
        case .settingInitPRN, .settingDataPRN, .settingFallbackPRN: .setPRN
        case .selectingCommand, .selectingData: .selectObject
        case .creatingCommand, .creatingData: .createObject
        case .checkingCommand, .checkingData, .awaitingReceipt, .checkingLostReceipt: .calculateChecksum
        case .executingCommand, .executingData, .executingResumedObject: .execute
        default: .response
        }
    }

    mutating func refused(_ result: SecureDFUResultCode, _ extended: SecureDFUExtendedError?,
                                  request op: SecureDFUOpCode) -> SecureDFUAction {
        // SDK 15–17 answer 0x08 when the object re-executed on resume was already executed.
        if result == .operationNotPermitted, phase == .executingResumedObject {
            return executedObject()
        }
        let request: String
        switch phase {
        case .executingCommand: request = "the init packet"
        default: request = op.description
        }
        return fail(.remote(step: step, request: request, status: .secure(result, extended)))
    }

    mutating func selectedCommand(maxSize: UInt32, offset: UInt32, crc: UInt32) -> SecureDFUAction {
        do { _ = try SecureFieldRange.maxObjectSize.checked(Int(maxSize)) } catch { return fail(error) }
        guard initPacket.count <= Int(maxSize) else {
            return fail(.invalidPart(kind,
                reason: "the init packet (\(initPacket.count) bytes) is larger than the bootloader accepts (\(maxSize) bytes)"))
        }
        let length = initPacket.count
        if configuration.resume, offset > 0, Int(offset) <= length,
            CRC32.checksum(initPacket[0..<Int(offset)]) == crc {
            if Int(offset) == length {
                phase = .executingCommand
                return .send(.execute)
            }
            phase = .sendingCommand
            sent = Int(offset)
            return .writePackets(packets(of: initPacket, from: Int(offset), to: length), awaitReceipt: false)
        }
        phase = .creatingCommand
        return .send(.create(.command, size: UInt32(length)))
    }

    mutating func checkedCommand(offset: UInt32, crc: UInt32) -> SecureDFUAction {
        let expectedCRC = CRC32.checksum(initPacket)
        if Int(offset) == initPacket.count, crc == expectedCRC {
            phase = .executingCommand
            return .send(.execute)
        }
        commandAttempts += 1
        if commandAttempts >= configuration.objectAttempts {
            return fail(.crcMismatch(step: step, object: "init packet", expectedOffset: UInt32(initPacket.count),
                                     reportedOffset: offset, expectedCRC: expectedCRC, reportedCRC: crc,
                                     attempts: commandAttempts))
        }
        phase = .creatingCommand
        return .send(.create(.command, size: UInt32(initPacket.count)))
    }

    mutating func executedCommand() -> SecureDFUAction {
        if configuration.packetReceiptNotifications != devicePRN {
            phase = .settingDataPRN
            return .send(.setPRN(configuration.packetReceiptNotifications))
        }
        phase = .selectingData
        return .send(.select(.data))
    }

    mutating func selectedData(maxSize: UInt32, offset reported: UInt32, crc: UInt32, bytes: [UInt8]) -> SecureDFUAction {
        do { dataMaxSize = try SecureFieldRange.maxObjectSize.checked(Int(maxSize)) } catch { return fail(error) }
        let offset = Int(reported)
        let total = image.count
        if configuration.resume, offset > 0, offset <= total, CRC32.checksum(image[0..<offset]) == crc {
            if offset == total || offset % dataMaxSize == 0 {
                // The last full object may not have been executed: execute it (0x08 = it was).
                setObject(start: offset - (offset % dataMaxSize == 0 ? dataMaxSize : offset % dataMaxSize),
                          crcKnown: nil)
                objectEnd = offset
                sent = offset
                phase = .executingResumedObject
                return .send(.execute)
            }
            // Inside an object: send the rest without a new Create.
            setObject(start: offset - offset % dataMaxSize, crcKnown: nil)
            sent = offset
            bytesExecuted = objectStart
            packetsSinceReset = 0
            return stream()
        }
        if offset > 0, offset <= total {
            // Mismatch: roll back to the start of the object holding the last byte.
            setObject(start: (offset - 1) / dataMaxSize * dataMaxSize, crcKnown: nil)
        } else {
            setObject(start: 0, crcKnown: 0)
        }
        bytesExecuted = objectStart
        return createObject()
    }

    mutating func setObject(start: Int, crcKnown: UInt32?) {
        objectStart = min(max(0, start), image.count)
        objectEnd = min(objectStart + dataMaxSize, image.count)
        crcAtObjectStart = crcKnown ?? CRC32.checksum(image[0..<objectStart])
        crcSoFar = (objectStart, crcAtObjectStart)
        sent = objectStart
        attempts = 0
        lossRetries = 0
    }

    mutating func createObject() -> SecureDFUAction {
        sent = objectStart
        phase = .creatingData
        return .send(.create(.data, size: UInt32(objectEnd - objectStart)))
    }

    mutating func stream() -> SecureDFUAction {
        phase = .streaming
        let prn = Int(devicePRN)
        var limit = objectEnd
        var awaitReceipt = false
        if prn > 0 {
            let untilReceipt = prn - packetsSinceReset % prn
            let end = min(objectEnd, sent + untilReceipt * configuration.packetSize)
            let count = packetCount(from: sent, to: end)
            if count == untilReceipt {
                awaitReceipt = true
            }
            limit = end
        }
        let batch = packets(of: image, from: sent, to: limit)
        packetsSinceReset += batch.count
        sent = limit
        if awaitReceipt { phase = .awaitingReceipt }
        return .writePackets(batch, awaitReceipt: awaitReceipt)
    }

    func packetCount(from start: Int, to end: Int) -> Int {
        (end - start + configuration.packetSize - 1) / configuration.packetSize
    }

    func packets(of bytes: [UInt8], from start: Int, to end: Int) -> [[UInt8]] {
        stride(from: start, to: end, by: configuration.packetSize).map { offset in
            Array(bytes[offset..<min(end, offset + configuration.packetSize)])
        }
    }

    mutating func crc(upTo end: Int) -> UInt32 {
        let (from, start) = crcSoFar.end >= objectStart && crcSoFar.end <= end ? crcSoFar : (objectStart, crcAtObjectStart)
        var running = CRC32(continuingFrom: start)
        running.update(image[from..<end])
        crcSoFar = (end, running.value)
        return running.value
    }

    mutating func checkedReceipt(offset: UInt32, crc reportedCRC: UInt32) -> SecureDFUAction {
        if Int(offset) == sent, reportedCRC == crc(upTo: sent) {
            if sent < objectEnd { return stream() }
            phase = .checkingData
            return .send(.calculateChecksum)
        }
        return retryObject(reportedOffset: offset, reportedCRC: reportedCRC, lost: Int(offset) != sent)
    }

    mutating func checkedObject(offset: UInt32, crc reportedCRC: UInt32) -> SecureDFUAction {
        if Int(offset) == objectEnd, reportedCRC == crc(upTo: objectEnd) {
            phase = .executingData
            return .send(.execute)
        }
        return retryObject(reportedOffset: offset, reportedCRC: reportedCRC, lost: Int(offset) != objectEnd)
    }

    mutating func retryObject(reportedOffset: UInt32, reportedCRC: UInt32, lost: Bool) -> SecureDFUAction {
        if lost, lossRetries < configuration.lossRetries {
            // The device answers but holds less than was sent: it could not keep up. Slow down and go again.
            lossRetries += 1
        } else {
            attempts += 1
        }
        if attempts >= configuration.objectAttempts {
            let index = objectStart / max(1, dataMaxSize) + 1
            let count = (image.count + dataMaxSize - 1) / max(1, dataMaxSize)
            return fail(.crcMismatch(step: step, object: "data object \(index) of \(count) (bytes \(objectStart)..<\(objectEnd))",
                                     expectedOffset: UInt32(sent), reportedOffset: reportedOffset,
                                     expectedCRC: crc(upTo: sent), reportedCRC: reportedCRC, attempts: attempts))
        }
        if lost {
            lossesDetected += 1
            if loweredPRN {
                // Losses go on after the PRN fell back: wait for the page erase after every Create, longer each time.
                delayAfterLosses = delayAfterLosses == .zero ? configuration.lossDelay
                    : min(delayAfterLosses * 2, max(configuration.maximumLossDelay, configuration.lossDelay))
            }
            let fallback = configuration.packetReceiptNotificationsAfterLoss
            if lossesDetected >= configuration.lossesBeforePRNFallback {
                loweredPRN = true
            }
            if loweredPRN, devicePRN == 0 || devicePRN > fallback {
                phase = .settingFallbackPRN
                return .send(.setPRN(fallback))
            }
        }
        return createObject()
    }

    mutating func executedObject() -> SecureDFUAction {
        bytesExecuted = objectEnd
        if objectEnd >= image.count {
            phase = .resetting
            return .awaitReset
        }
        setObject(start: objectEnd, crcKnown: crc(upTo: objectEnd))
        return createObject()
    }

    mutating func fail(_ error: DFUError) -> SecureDFUAction {
        phase = .failed
        return .fail(error)
    }

    /// Notifications are being enabled on the control point, before ``start()``.
    mutating func enablingNotifications() {
        if phase == .idle { phase = .enablingNotifications }
    }
}
