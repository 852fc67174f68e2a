import { describe, expect, it } from 'vitest';
import {
  classifySensitivity,
  detectSensitiveData,
  isIban,
  isPaymentCard,
  isValidNino,
  isValidSsn,
  luhnValid,
  maxSensitivity,
  shannonEntropy,
} from '../../server/services/consolidation/sensitivity.js';

describe('secrets → high', () => {
  it.each([
    ['AWS key AKIAIOSFODNN7EXAMPLE in the env', 'secret:aws-access-key'],
    ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'secret:aws-secret-key'],
    ['token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8', 'secret:github-token'],
    ['bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'secret:slack-token'],
    ['stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'secret:stripe-key'],
    ['maps AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY', 'secret:google-api-key'],
    ['our key tmk_Q2hhbmdlTWVQbGVhc2VOb3RBUmVhbEtleQ', 'secret:platform-api-key'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----', 'secret:private-key'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE', 'secret:private-key'],
    ['session eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'secret:jwt'],
    ['api_key=Zx8Qk2LmP9vT4rW7nB3c', 'secret:generic-high-entropy'],
    ['client_secret: "9f8A7d6C5b4E3a2F1g0H"', 'secret:generic-high-entropy'],
  ])('%j → %s', (text, reason) => {
    const r = classifySensitivity(text);
    expect(r.reasons).toEqual([reason]);
    expect(r.level).toBe('high');
  });

  it('does not treat low-entropy or wordy values as secrets', () => {
    expect(classifySensitivity('token: aaaaaaaaaaaaaaaaaaaa').reasons).toEqual([]);
    expect(classifySensitivity('the api key rotation policy is documented').reasons).toEqual([]);
    expect(classifySensitivity('secret = supercalifragilistic').reasons).toEqual([]);
    // A JWT-shaped string whose header is not JSON with "alg".
    expect(classifySensitivity('eyJub3RhIjoiand0In0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N').reasons).toEqual([]);
  });

  it('entropy helper', () => {
    expect(shannonEntropy('')).toBe(0);
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
});

describe('credentials → high', () => {
  it.each([['password: hunter2!'], ['My password is correcthorse'], ['wifi pwd=Tr0ub4dor&3'], ['PIN code: 4821']])('%j', (text) => {
    expect(classifySensitivity(text)).toEqual({ level: 'high', reasons: ['credential:password'], detectedLevel: 'high' });
  });

  it('credentials in a connection URL', () => {
    expect(classifySensitivity('postgres://admin:s3cret@db.internal:5432/app').reasons).toEqual(['credential:connection-string']);
  });

  it.each([
    ['my password manager is 1Password'],
    ['the password is too weak'],
    ['Password is required for the admin page'],
    ['reset the password tomorrow'],
    ['postgres://db.internal:5432/app'],
  ])('does not flag %j', (text) => {
    expect(classifySensitivity(text)).toEqual({ level: 'low', reasons: [], detectedLevel: 'low' });
  });
});

describe('payment cards (Luhn) → high', () => {
  it('Luhn check', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('12a4')).toBe(false);
  });

  it.each([['4111 1111 1111 1111'], ['5555-5555-5555-4444'], ['378282246310005'], ['6011111111111117'], ['4242424242424242']])(
    'detects %s',
    (card) => {
      expect(isPaymentCard(card)).toBe(true);
      expect(classifySensitivity(`card ${card} exp 12/27`).reasons).toEqual(['financial:payment-card']);
      expect(classifySensitivity(`card ${card}`).level).toBe('high');
    },
  );

  it('a 16-digit number failing Luhn is not a card', () => {
    expect(isPaymentCard('4111111111111112')).toBe(false);
    expect(classifySensitivity('card 4111 1111 1111 1112').reasons).toEqual([]);
    expect(classifySensitivity('card 4111 1111 1111 1112').level).toBe('low');
  });

  it('a Luhn-valid number without a card brand prefix is not a card', () => {
    expect(luhnValid('1234567812345670')).toBe(true);
    expect(isPaymentCard('1234567812345670')).toBe(false);
    expect(classifySensitivity('order 1234567812345670 shipped').reasons).toEqual([]);
  });
});

describe('government ids → high', () => {
  it('US SSN with invalid ranges excluded', () => {
    expect(classifySensitivity('SSN 123-45-6789').reasons).toEqual(['government-id:us-ssn']);
    expect(classifySensitivity('social security number: 123456789').reasons).toEqual(['government-id:us-ssn']);
    for (const bad of ['000-12-3456', '666-12-3456', '900-12-3456', '999-12-3456', '123-00-6789', '123-45-0000', '078-05-1120']) {
      expect(classifySensitivity(`SSN ${bad}`).reasons).toEqual([]);
    }
    expect(isValidSsn('123', '45', '6789')).toBe(true);
    expect(isValidSsn('666', '45', '6789')).toBe(false);
    // A bare nine-digit number without an SSN label is not an SSN.
    expect(classifySensitivity('ticket 123456789').reasons).toEqual([]);
  });

  it('UK National Insurance number', () => {
    expect(classifySensitivity('NI number AB123456C').reasons).toEqual(['government-id:uk-nino']);
    expect(classifySensitivity('NI: JG 10 37 75 A').reasons).toEqual(['government-id:uk-nino']);
    expect(isValidNino('GB123456A')).toBe(false); // never-issued prefix
    expect(isValidNino('DA123456A')).toBe(false); // D is not a valid first letter
    expect(isValidNino('AB123456E')).toBe(false); // suffix must be A–D
    expect(classifySensitivity('NI GB123456A').reasons).toEqual([]);
  });

  it('IBAN with the mod-97 check', () => {
    expect(classifySensitivity('IBAN GB82 WEST 1234 5698 7654 32').reasons).toEqual(['financial:iban']);
    expect(classifySensitivity('pay to DE89370400440532013000').reasons).toEqual(['financial:iban']);
    expect(isIban('GB82 WEST 1234 5698 7654 33')).toBe(false);
    expect(classifySensitivity('IBAN GB82 WEST 1234 5698 7654 33').reasons).toEqual([]);
  });
});

describe('contact details → medium', () => {
  it('emails', () => {
    expect(classifySensitivity('write to alice@example.com')).toEqual({
      level: 'medium',
      reasons: ['contact:email'],
      detectedLevel: 'medium',
    });
    expect(classifySensitivity('alice at example dot com').reasons).toEqual([]);
  });

  it('phone numbers, international and national', () => {
    expect(classifySensitivity('call +44 20 7946 0958').reasons).toEqual(['contact:phone']);
    expect(classifySensitivity('call (415) 555-2671').reasons).toEqual(['contact:phone']);
    expect(classifySensitivity('call 020 7946 0958').reasons).toEqual(['contact:phone']);
    expect(classifySensitivity('call 020 7946 0958').level).toBe('medium');
    // Regions are configurable: a UK national number is not recognised when only US is configured.
    expect(classifySensitivity('call 020 7946 0958', undefined, { phoneRegions: ['US'] }).reasons).toEqual([]);
  });

  it('dates, times, versions and small numbers are not phones', () => {
    for (const text of [
      'meeting on 2024-03-12 at 10:30, room 42',
      'version 1.2.3 build 20240312',
      'phone number 12345',
      'I have 3 kids and 2 dogs',
    ]) {
      expect(classifySensitivity(text).reasons).toEqual([]);
    }
  });
});

describe("writer's choice is never downgraded", () => {
  it('no writer level → detected level', () => {
    expect(classifySensitivity('Alice likes hiking').level).toBe('low');
    expect(classifySensitivity('mail alice@example.com').level).toBe('medium');
  });

  it('writer level above detection is kept, with detections still reported', () => {
    expect(classifySensitivity('Alice likes hiking', 'high')).toEqual({ level: 'high', reasons: [], detectedLevel: 'low' });
    expect(classifySensitivity('mail alice@example.com', 'high')).toEqual({
      level: 'high',
      reasons: ['contact:email'],
      detectedLevel: 'medium',
    });
    expect(classifySensitivity('mail alice@example.com', 'medium').level).toBe('medium');
  });

  it('writer level below detection is raised to the detected level', () => {
    expect(classifySensitivity('mail alice@example.com', 'low')).toEqual({
      level: 'medium',
      reasons: ['contact:email'],
      detectedLevel: 'medium',
    });
    expect(classifySensitivity('password: hunter2!', 'low').level).toBe('high');
    expect(classifySensitivity('password: hunter2!', 'medium').level).toBe('high');
  });

  it('maxSensitivity orders low < medium < high', () => {
    expect(maxSensitivity('low', 'medium')).toBe('medium');
    expect(maxSensitivity('high', 'medium')).toBe('high');
    expect(maxSensitivity('low', 'low')).toBe('low');
  });
});

describe('combined', () => {
  it('reports every detection in a stable order and takes the highest level', () => {
    const text = 'Contact bob@example.com or +1 415 555 2671; card 4111111111111111; SSN 123-45-6789';
    expect(detectSensitiveData(text)).toEqual(['financial:payment-card', 'government-id:us-ssn', 'contact:email', 'contact:phone']);
    expect(classifySensitivity(text).level).toBe('high');
  });

  it('ordinary memories are low', () => {
    for (const text of ['The user prefers dark mode.', 'Alice moved to Berlin in 2024.', 'Budget is 1500 EUR for Q3', '']) {
      expect(classifySensitivity(text)).toEqual({ level: 'low', reasons: [], detectedLevel: 'low' });
    }
  });
});
