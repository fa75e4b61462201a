import { DescribeTimeToLiveCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rejectionOf, setUpTarget, type TestTarget } from './support';

let target: TestTarget;

beforeAll(async () => {
  target = await setUpTarget('ttl');
});

afterAll(async () => {
  await target?.tearDown();
});

const describeTtl = () => target.client.send(new DescribeTimeToLiveCommand({ TableName: target.tableName }));
const updateTtl = (Enabled: boolean, AttributeName = 'expiresAt') =>
  target.client.send(new UpdateTimeToLiveCommand({ TableName: target.tableName, TimeToLiveSpecification: { Enabled, AttributeName } }));

describe('UpdateTimeToLive / DescribeTimeToLive', () => {
  it('starts disabled, then reports the enabled attribute', async () => {
    expect((await describeTtl()).TimeToLiveDescription?.TimeToLiveStatus).toBe('DISABLED');

    const { TimeToLiveSpecification } = await updateTtl(true);
    expect(TimeToLiveSpecification).toEqual({ Enabled: true, AttributeName: 'expiresAt' });

    const { TimeToLiveDescription } = await describeTtl();
    // Amazon passes through ENABLING first; the engine is ENABLED at once.
    expect(['ENABLING', 'ENABLED']).toContain(TimeToLiveDescription?.TimeToLiveStatus);
    expect(TimeToLiveDescription?.AttributeName).toBe('expiresAt');
  });

  it('refuses to enable it twice or on another attribute while enabled', async () => {
    const again = await rejectionOf(updateTtl(true));
    expect(again.name).toBe('ValidationException');
    expect(again.message).toMatch(/TimeToLive is already enabled/);

    const other = await rejectionOf(updateTtl(true, 'otherAttribute'));
    expect(other.name).toBe('ValidationException');
    expect(other.message).toMatch(/TimeToLive is active on a different AttributeName: current AttributeName is expiresAt/);
  });

  it('refuses to disable it while naming another attribute than the enabled one', async () => {
    const err = await rejectionOf(updateTtl(false, 'otherAttribute'));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toMatch(/TimeToLive is active on a different AttributeName: current AttributeName is expiresAt/);
    expect((await describeTtl()).TimeToLiveDescription?.AttributeName).toBe('expiresAt');
  });

  it('answers ResourceNotFoundException for an unknown table', async () => {
    const err = await rejectionOf(target.client.send(new DescribeTimeToLiveCommand({ TableName: `${target.tableName}-missing` })));
    expect(err.name).toBe('ResourceNotFoundException');
    const update = await rejectionOf(
      target.client.send(
        new UpdateTimeToLiveCommand({
          TableName: `${target.tableName}-missing`,
          TimeToLiveSpecification: { Enabled: true, AttributeName: 'x' },
        }),
      ),
    );
    expect(update.name).toBe('ResourceNotFoundException');
  });
});
