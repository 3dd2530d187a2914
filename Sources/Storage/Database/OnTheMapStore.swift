/// Everything the server stores, behind one value it can pass around.
public typealias OnTheMapStore = AccountRepository & SessionRepository & StudentLocationRepository & TravelRepository
    & LoginThrottleRepository & ModerationRepository & SignInRepository & LocationChangeRepository & ClassRepository
    & PersonalDataRepository & LTIRepository & MailOutboxRepository & ClassReminderRepository & ClassNoticeRepository
