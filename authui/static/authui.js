// authui browser helpers. Placeholder until the browser client lands.
