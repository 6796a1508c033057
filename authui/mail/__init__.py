"""Sign-in emails: the message, its rendering from the theme pack, and the transports that
send it (SMTP on aiosmtplib, the HTTP mail APIs on httpx, the console for development)."""
